package executor

import (
	"fmt"
	"sync"

	"github.com/hyphae-run/hyphae/context/store"
)

// In-flight limits per context and per script type, beside the runner-wide
// Concurrency: a context's loop claims only while its context is under
// MaxInFlightPerContext, and only from the queues whose type is under its
// TypeLimits entry. They count the jobs this runner holds (running, or
// waiting out a retry's backoff), in memory: a restarted runner starts
// from the jobs it runs, which are none. With a limit set, chaining and
// offers are off (they claim outside the loop's check).

// inFlight counts the jobs in hand per context and per type; its zero
// value is ready.
type inFlight struct {
	// claimMu makes a loop's look at the counts, its claim and the count
	// of what it claimed one step: the loops of two contexts must not
	// both see room for the last job of a type.
	claimMu sync.Mutex
	mu      sync.Mutex
	perCtx  map[uint64]int          // guarded by mu
	perTyp  map[string]int          // guarded by mu
	held    map[*store.Claim]func() // counted claims not yet dispatched; guarded by mu
}

// claimLimited runs claim over the types of order context id may claim
// from now (openTypes) and counts the job it takes, all under
// claimMu; without limits it is claim(order).
func (r *Runner) claimLimited(id uint64, order []string, claim func([]string) (*store.Claim, error)) (*store.Claim, error) {
	if !r.cfg.limited() {
		return claim(order)
	}
	f := &r.inFlight
	f.claimMu.Lock()
	defer f.claimMu.Unlock()
	types := r.openTypes(id, order)
	if len(types) == 0 {
		return nil, nil
	}
	cl, err := claim(types)
	if cl != nil && cl.Verdict == store.VerdictRun {
		done := r.countStart(id, cl.Type)
		f.mu.Lock()
		if f.held == nil {
			f.held = map[*store.Claim]func(){}
		}
		f.held[cl] = done
		f.mu.Unlock()
	}
	return cl, err
}

// counted returns what counts the end of claim cl's job: the count
// claimLimited took, else (a claim made elsewhere) a count taken now.
func (r *Runner) counted(id uint64, cl *store.Claim) func() {
	f := &r.inFlight
	f.mu.Lock()
	done, ok := f.held[cl]
	delete(f.held, cl)
	f.mu.Unlock()
	if ok {
		return done
	}
	return r.countStart(id, cl.Type)
}

// limited reports whether any per-context or per-type limit is set.
func (c Config) limited() bool { return c.MaxInFlightPerContext > 0 || len(c.TypeLimits) > 0 }

// openTypes returns the types of order that context id may claim from now
// (all of them without limits); empty when its context is full or every
// type is.
func (r *Runner) openTypes(id uint64, order []string) []string {
	if !r.cfg.limited() {
		return order
	}
	f := &r.inFlight
	f.mu.Lock()
	defer f.mu.Unlock()
	if m := r.cfg.MaxInFlightPerContext; m > 0 && f.perCtx[id] >= m {
		return nil
	}
	out := order[:0:0]
	for _, t := range order {
		if m, ok := r.cfg.TypeLimits[t]; !ok || f.perTyp[t] < m {
			out = append(out, t)
		}
	}
	return out
}

// countStart counts a job of type typ taken in context id; the func it
// returns counts its end (once) and wakes the loops, which may have
// stopped claiming for this limit.
func (r *Runner) countStart(id uint64, typ string) func() {
	if !r.cfg.limited() {
		return func() {}
	}
	f := &r.inFlight
	f.mu.Lock()
	if f.perCtx == nil {
		f.perCtx, f.perTyp = map[uint64]int{}, map[string]int{}
	}
	f.perCtx[id]++
	f.perTyp[typ]++
	f.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			f.mu.Lock()
			f.perCtx[id]--
			f.perTyp[typ]--
			f.mu.Unlock()
			r.wakeAll()
		})
	}
}

// wakeAll nudges every context's loop to look at its queues again.
func (r *Runner) wakeAll() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, sc := range r.contexts {
		select {
		case sc.wake <- struct{}{}:
		default:
		}
	}
}

// validLimits checks the per-context and per-type limits.
func (c Config) validLimits() []error {
	var errs []error
	if c.MaxInFlightPerContext < 0 {
		errs = append(errs, fmt.Errorf("MaxInFlightPerContext %d must not be negative", c.MaxInFlightPerContext))
	}
	for t, n := range c.TypeLimits {
		if n < 1 {
			errs = append(errs, fmt.Errorf("TypeLimits[%q] %d must be positive", t, n))
		}
	}
	return errs
}
