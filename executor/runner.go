package executor

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/executor/sandbox"
	"github.com/hyphae-run/hyphae/internal/lifecycle"
)

// Runner executes jobs from the queues of the contexts it serves (and, with
// a WorkerID, hero dispatcher jobs). Create it with New, then Start it;
// Shutdown drains it.
type Runner struct {
	user          *runAs // jobs' credentials, nil = the agent's own
	cfg           Config
	st            Store
	log           *slog.Logger
	types         map[string]interp // read-only after New
	served        []string          // sorted keys of types
	python        *pythonPath
	devNull       *os.File      // stdin of every job; open from Start to the end of Shutdown
	sem           chan struct{} // one token per running job
	waiting       atomic.Int32  // dequeue loops waiting for a slot
	events        atomic.Bool   // keyspace notifications are on
	eventsChecked atomic.Bool

	cg *cgroups // the jobs' cgroups, nil = process groups only; set by Start

	box        *sandbox.Sandbox // contains jobs (contain.go); set by Start, guarded by mu
	exposeOnce sync.Once
	policies   policyCache

	mu          sync.Mutex
	iso         Isolation                        // guarded by mu
	running     map[runKey]*attempt              // guarded by mu
	hooks       []func(uint64, *model.RunnerJob) // guarded by mu
	starting    []func(uint64, *model.RunnerJob) // guarded by mu
	ending      []EndingHook                     // guarded by mu
	contexts    map[uint64]*servedContext        // guarded by mu
	heroStopped map[string]struct{}              // guarded by mu
	stopNotes   map[jobRef]stopNote              // recent stop requests; guarded by mu
	sweepReq    map[uint64]map[string]bool       // context → queue types to sweep ("" = all); guarded by mu
	started     bool                             // guarded by mu
	stopping    bool                             // guarded by mu

	refreshes refreshes // one listing of the contexts applied at a time
	inFlight  inFlight  // per-context and per-type counts (keyed_limits.go)

	// Both groups run from New to Shutdown. intakeWork: the goroutines
	// that take work (and outstanding offers), stopped first; its context
	// intake ends when Shutdown begins. serviceWork: heartbeat and stop
	// events, stopped after the last job; its context is service.
	intakeWork  lifecycle.Group
	intake      context.Context
	serviceWork lifecycle.Group
	service     context.Context
	jobWG       sync.WaitGroup // one per job or hero job in hand
	sweepKick   chan struct{}  // sweepReq has entries
	drainNow    chan struct{}  // closed when running jobs must be killed
	drainOnce   sync.Once
	shutOnce    sync.Once
	done        chan struct{} // closed when Shutdown completed
}

// runKey names one attempt in the running table (ctxID 0 = hero job).
type runKey struct {
	ctxID   uint64
	key     string
	attempt int64
}

// servedContext is the dequeue loop of one context.
type servedContext struct {
	ctx     context.Context // ends when the context is no longer served
	cancel  context.CancelFunc
	wake    chan struct{} // a job may have been pushed
	rot     atomic.Uint32 // rotates the order in which its queues are tried
	waiting atomic.Int32  // 1 while its loop waits for a slot
	hints   queueHints    // which of its queues claims found empty (queue_hints.go)
}

// New checks cfg and prepares a Runner; nothing runs before Start.
func New(cfg Config, st Store, log *slog.Logger) (*Runner, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if !st.complete() {
		return nil, fmt.Errorf("executor.New: nil store")
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	cfg = cfg.withDefaults()
	runAs, err := resolveUser(cfg.User, cfg.DataDir)
	if err != nil {
		return nil, fmt.Errorf("executor.New: %w", err)
	}
	if cfg.Contexts == nil {
		cfg.Contexts = registryContexts(st.Registry)
	}
	r := &Runner{
		cfg: cfg, st: st, log: log.With("runner", cfg.RunnerID), user: runAs,
		sem:         make(chan struct{}, cfg.Concurrency),
		python:      &pythonPath{configured: cfg.Python},
		running:     map[runKey]*attempt{},
		contexts:    map[uint64]*servedContext{},
		heroStopped: map[string]struct{}{},
		stopNotes:   map[jobRef]stopNote{},
		sweepKick:   make(chan struct{}, 1),
		drainNow:    make(chan struct{}),
		done:        make(chan struct{}),
	}
	r.python.log = r.log
	r.types = resolveTypes(cfg, r.log)
	r.served = sortedTypes(r.types)
	r.intake, _ = r.intakeWork.Start(context.Background()) // new Groups start
	r.service, _ = r.serviceWork.Start(context.Background())
	return r, nil
}

// registryContexts lists every context of the DB 0 registry.
func registryContexts(st RegistryStore) func(context.Context) ([]uint64, error) {
	return func(ctx context.Context) ([]uint64, error) {
		cs, err := st.ListContexts(ctx)
		if err != nil {
			return nil, err
		}
		ids := make([]uint64, 0, len(cs))
		for _, c := range cs {
			ids = append(ids, c.ID)
		}
		return ids, nil
	}
}

// ScriptTypes returns the script types this runner serves, sorted.
func (r *Runner) ScriptTypes() []string { return append([]string(nil), r.served...) }

// RunnerID returns the id naming this runner's processing list and leases.
func (r *Runner) RunnerID() string { return r.cfg.RunnerID }

// Load returns how many jobs run now and how many may run at once.
func (r *Runner) Load() (running, capacity int) { return len(r.sem), cap(r.sem) }

// OnJobDone registers fn to be called after a job's final status (finished
// or error) was written by this runner. fn runs on the job's goroutine
// after its slot was freed or handed on to the next job; it must not block
// for long.
func (r *Runner) OnJobDone(fn func(ctxID uint64, job *model.RunnerJob)) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.hooks = append(r.hooks, fn)
}

func (r *Runner) jobDone(ctxID uint64, job *model.RunnerJob) {
	r.callHooks(&r.hooks, ctxID, job)
}

// OnJobStarted registers fn to be called when an attempt of a job starts
// here, just before its script runs (the job's status is started in the
// store by then). fn runs on the job's goroutine, reads job only and must
// not block: a component that reports the start elsewhere (the bridge
// tells a remote job's origin) does so in the background.
func (r *Runner) OnJobStarted(fn func(ctxID uint64, job *model.RunnerJob)) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.starting = append(r.starting, fn)
}

// callHooks calls the hooks in *list (guarded by mu) with ctxID and job.
func (r *Runner) callHooks(list *[]func(uint64, *model.RunnerJob), ctxID uint64, job *model.RunnerJob) {
	r.mu.Lock()
	hooks := (*list)[:len(*list):len(*list)] // appends after this copy do not touch it
	r.mu.Unlock()
	for _, h := range hooks {
		h(ctxID, job)
	}
}

// Start reclaims this runner's leftovers and starts serving. ctx bounds
// the start-up work only; the runner runs until Shutdown.
func (r *Runner) Start(ctx context.Context) error {
	r.mu.Lock()
	if r.started || r.stopping {
		r.mu.Unlock()
		return fmt.Errorf("executor.Start: %w", ErrStarted)
	}
	r.started = true
	r.mu.Unlock()
	if err := os.MkdirAll(r.cfg.DataDir, 0o700); err != nil {
		return fmt.Errorf("executor.Start: data dir: %w", err)
	}
	if f, err := os.Open(os.DevNull); err == nil && r.devNull == nil {
		r.devNull = f
	}
	r.enableEvents(ctx)
	r.contain()
	if err := r.openSandbox(); err != nil {
		r.mu.Lock()
		r.started = false
		r.mu.Unlock()
		r.uncontain()
		return fmt.Errorf("executor.Start: %w", err)
	}
	if err := r.refreshContexts(ctx); err != nil { // nothing runs yet: Start may be retried
		r.mu.Lock()
		r.started = false
		r.mu.Unlock()
		r.uncontain()
		return fmt.Errorf("executor.Start: %w", err)
	}
	r.goService(r.watchEvents)
	r.goService(r.heartbeat)
	r.goIntake(r.refreshLoop)
	r.goIntake(r.reapLoop)
	r.goIntake(r.sweepLoop)
	if r.cfg.WorkerID != "" {
		r.goIntake(r.heroLoop)
		r.goService(r.heroStopLoop)
	}
	r.log.Info("executor: started", "types", r.served, "concurrency", r.cfg.Concurrency,
		"keyspace_events", r.events.Load(), "hero_worker", r.cfg.WorkerID, "isolation", r.Isolation().String(),
		"containment", r.Containment())
	return nil
}

func (r *Runner) goIntake(fn func(context.Context)) { r.intakeWork.Go(fn) }

func (r *Runner) goService(fn func(context.Context)) { r.serviceWork.Go(fn) }
