package bridge

import (
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"
)

// Circuit breakers, one per destination peer, in this agent's memory: they
// describe this agent's view of each peer (another agent may see the same
// peer differently) and start closed at every start.
//
// A breaker counts the job messages whose outcome was the peer's fault
// (breakerFault: refused, never acknowledged within the bus timeout, no
// result in time, given up on as lost, or a result that says the job did
// not run there); Threshold of them in a row within Window open it. While
// open (Cooldown), jobs the agent routes (to any, a flow job with no
// runner) go to another allowed runner or wait, and a job addressed to
// that peer is refused at once (ErrBreakerOpen). Then it is half-open: one
// job goes as a probe (another one per Cooldown while no answer came); a
// success closes it, a failure opens it again. A success is any result
// that is not a fault, a script's non-zero exit included: the peer did
// its part. Retransmissions of messages sent before it opened still go.

// BreakerConfig tunes the breakers (config section breaker).
type BreakerConfig struct {
	Threshold int           // faults in a row that open a breaker; 0: breakers off
	Window    time.Duration // they count only within this span; default 1m
	Cooldown  time.Duration // how long it stays open before a probe; default 30s
}

// Breaker states, as BreakerState.State shows them.
const (
	BreakerClosed   = "closed"
	BreakerOpen     = "open"
	BreakerHalfOpen = "half-open"
)

// ErrBreakerOpen is why a job addressed to a peer is refused at once: its
// circuit breaker is open (or half-open with its probe under way). Errors
// that wrap it name the peer, the last fault and when a probe may go; they
// also match ErrNoRunner, so a job refused so is treated as one that has
// nowhere to go.
var ErrBreakerOpen = errors.New("circuit breaker open")

type breakerOpenError struct {
	peer string
	s    BreakerState
}

func (e *breakerOpenError) Error() string {
	wait := time.Until(e.s.Until).Round(time.Second)
	if e.s.State == BreakerHalfOpen {
		return fmt.Sprintf("circuit breaker for peer %s is half-open: a probe job is under way (after %d faults in a row; last: %s)",
			e.peer, e.s.Failures, e.s.LastError)
	}
	return fmt.Sprintf("circuit breaker for peer %s is open for %v more: %d faults in a row (last: %s); "+
		"jobs addressed to it are refused until then (breaker.cooldown), then one goes as a probe",
		e.peer, max(wait, 0), e.s.Failures, e.s.LastError)
}

func (e *breakerOpenError) Is(target error) bool {
	return target == ErrBreakerOpen || target == ErrNoRunner
}

// BreakerState is one peer's breaker as this agent sees it.
type BreakerState struct {
	Peer      string
	State     string    // closed, open or half-open
	Failures  int       // faults in a row (within Window while closed)
	OpenedAt  time.Time // when it last opened; zero: never
	Until     time.Time // while open: when a probe may go; zero otherwise
	LastError string    // the last fault's reason
	Trips     uint64    // how many times it opened
}

// breaker is one peer's state; guarded by breakers.mu.
type breaker struct {
	streak    []time.Time // faults in a row, within Window while closed
	open      bool        // open or half-open (half-open once until passed)
	openedAt  time.Time
	until     time.Time
	probeAt   time.Time // when the half-open probe went; zero: none yet
	lastError string
	trips     uint64
}

// breakers holds every peer's breaker.
type breakers struct {
	cfg BreakerConfig
	now func() time.Time
	// changed hears of each opening and closing (for the log).
	changed func(peer string, s BreakerState)

	mu sync.Mutex
	m  map[string]*breaker // guarded by mu
}

func newBreakers(cfg BreakerConfig) *breakers {
	if cfg.Window <= 0 {
		cfg.Window = time.Minute
	}
	if cfg.Cooldown <= 0 {
		cfg.Cooldown = 30 * time.Second
	}
	return &breakers{cfg: cfg, now: time.Now, m: map[string]*breaker{}}
}

func (bs *breakers) on() bool { return bs != nil && bs.cfg.Threshold > 0 }

// stateLocked is b's state at now.
func (bs *breakers) stateLocked(peer string, b *breaker, now time.Time) BreakerState {
	s := BreakerState{Peer: peer, State: BreakerClosed, Failures: len(b.streak), OpenedAt: b.openedAt,
		LastError: b.lastError, Trips: b.trips}
	switch {
	case !b.open:
	case now.Before(b.until):
		s.State, s.Until = BreakerOpen, b.until
	default:
		s.State = BreakerHalfOpen
	}
	return s
}

// refuses says whether peer's breaker refuses a job now: open, or
// half-open with its probe under way; take, when it lets one through
// half-open, makes that job the probe.
func (bs *breakers) refuses(peer string, take bool) (BreakerState, bool) {
	if !bs.on() {
		return BreakerState{}, false
	}
	bs.mu.Lock()
	defer bs.mu.Unlock()
	b, now := bs.m[peer], bs.now()
	if b == nil || !b.open {
		return BreakerState{}, false
	}
	s := bs.stateLocked(peer, b, now)
	if s.State == BreakerOpen || !b.probeAt.IsZero() && now.Sub(b.probeAt) < bs.cfg.Cooldown {
		return s, true
	}
	if take {
		b.probeAt = now
	}
	return s, false
}

// fault counts one fault of peer's, with its reason.
func (bs *breakers) fault(peer, reason string) {
	if !bs.on() || peer == "" {
		return
	}
	bs.mu.Lock()
	b, now := bs.m[peer], bs.now()
	if b == nil {
		b = &breaker{}
		bs.m[peer] = b
	}
	b.lastError = reason
	b.streak = append(b.streak, now)
	halfOpen := b.open && !now.Before(b.until)
	if !b.open { // closed: only the faults within the window count
		for len(b.streak) > 0 && now.Sub(b.streak[0]) > bs.cfg.Window {
			b.streak = b.streak[1:]
		}
	}
	opens := halfOpen || !b.open && len(b.streak) >= bs.cfg.Threshold
	if opens {
		b.open, b.openedAt, b.until, b.probeAt = true, now, now.Add(bs.cfg.Cooldown), time.Time{}
		b.trips++
	}
	s := bs.stateLocked(peer, b, now)
	bs.mu.Unlock()
	if opens && bs.changed != nil {
		bs.changed(peer, s)
	}
}

// success closes peer's breaker and clears its count.
func (bs *breakers) success(peer string) {
	if !bs.on() || peer == "" {
		return
	}
	bs.mu.Lock()
	b := bs.m[peer]
	if b == nil || !b.open && len(b.streak) == 0 {
		bs.mu.Unlock()
		return
	}
	was := b.open
	b.open, b.streak, b.until, b.probeAt = false, nil, time.Time{}, time.Time{}
	s := bs.stateLocked(peer, b, bs.now())
	bs.mu.Unlock()
	if was && bs.changed != nil {
		bs.changed(peer, s)
	}
}

// of is peer's breaker (closed, with no faults, when it has none).
func (bs *breakers) of(peer string) BreakerState {
	if bs == nil {
		return BreakerState{Peer: peer, State: BreakerClosed}
	}
	bs.mu.Lock()
	defer bs.mu.Unlock()
	b := bs.m[peer]
	if b == nil {
		return BreakerState{Peer: peer, State: BreakerClosed}
	}
	return bs.stateLocked(peer, b, bs.now())
}

// states lists every breaker this agent has, by peer.
func (bs *breakers) states() []BreakerState {
	if bs == nil {
		return nil
	}
	bs.mu.Lock()
	defer bs.mu.Unlock()
	now := bs.now()
	out := make([]BreakerState, 0, len(bs.m))
	for p, b := range bs.m {
		out = append(out, bs.stateLocked(p, b, now))
	}
	sort.Slice(out, func(i, k int) bool { return out[i].Peer < out[k].Peer })
	return out
}
