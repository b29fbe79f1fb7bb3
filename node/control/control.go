// Package control is the agent's control API: the JSON-RPC methods (one
// file per noun: methods_*.go), the views they answer with, the plain HTTP
// endpoints (/health, /ready, /info, /metrics) and the event streams.
//
// It holds no component of its own. Package node starts the parts and
// hands them over in a Deps; Handlers reads them, and asks the node for
// its live state (draining, ready, the API address, the contexts) through
// the funcs in Deps. The server that serves the table (node/api) belongs
// to the node too: control only fills the table and adds handlers.
package control

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/retention"
	"github.com/hyphae-run/hyphae/context/store"
	"github.com/hyphae-run/hyphae/crypto/identity"
	"github.com/hyphae-run/hyphae/executor"
	"github.com/hyphae-run/hyphae/internal/tracing"
	"github.com/hyphae-run/hyphae/node/api"
	"github.com/hyphae-run/hyphae/node/api/wire"
	"github.com/hyphae-run/hyphae/node/config"
	"github.com/hyphae-run/hyphae/node/metrics"
	"github.com/hyphae-run/hyphae/overlay"
	"github.com/hyphae-run/hyphae/overlay/bridge"
	"github.com/hyphae-run/hyphae/scheduler"
)

// Deps is what the handlers need from the agent: its started parts, facts
// fixed at start, and funcs for state that changes while it runs.
type Deps struct {
	Cfg     *config.Config
	ID      *identity.Identity
	Self    *model.Actor      // this agent's own actor record
	Store   Store             // the store's parts the handlers use (store.go)
	Briefs  *store.BriefCache // the job briefs job.page and ui.stats page through
	Overlay *overlay.Overlay
	Bridge  *bridge.Bridge
	Runner  *executor.Runner     // nil without the runner role
	Sched   *scheduler.Scheduler // nil without the supervisor role: no flow.* methods
	Stopper *bridge.Stopper      // stops jobs; the scheduler shares it
	Metrics *metrics.Metrics     // the node hooks its job counters to the runner
	Janitor *retention.Janitor   // retention: node.prune
	Tracer  *tracing.Tracer      // submit spans; nil: export off
	Files   Files                // files between jobs (methods_files.go); nil: none
	Log     *slog.Logger         // the agent's log (nil: slog's default)

	Version    string
	Socket     string    // path of the local API socket
	Started    time.Time // when the agent started
	StoreKind  string    // "external", or the embedded server's kind
	Persistent bool      // whether the store keeps its data over a restart
	// RedisSocket is the unix socket of the store when it listens on one
	// (the embedded redis-server's <data_dir>/redis/redis.sock), for
	// redis-cli -s; "" otherwise.
	RedisSocket string

	ScriptTypes     func() []string                         // the types this agent's runner runs
	ContextIDs      func(context.Context) ([]uint64, error) // this agent's contexts, sorted (cached)
	ContextsChanged func()                                  // tell the parts a context was created
	Draining        func() bool                             // the agent refuses new work
	Ready           func() bool                             // the agent has started
	Drain           func()                                  // mark the agent draining, then drain and stop it as SIGTERM does
	APIAddr         func() string                           // the bound TCP API address ("" when off)
	Reload          func() (*wire.ReloadView, error)        // re-read the config and apply it (nil: not supported)
	StoreHealth     func() error                            // nil while the store answers, else why not (may be nil)
}

// Handlers serves the control API from Deps.
type Handlers struct {
	Deps
	table *api.Table
}

// New returns the handlers of an agent whose parts have started.
func New(d Deps) *Handlers {
	return &Handlers{Deps: d}
}

// log is the agent's logger.
func (h *Handlers) log() *slog.Logger {
	if h.Log != nil {
		return h.Log
	}
	return slog.Default()
}

// Register fills table with every method; each noun has its own file.
func (h *Handlers) Register(table *api.Table) {
	h.table = table
	h.registerNodeMethods()
	h.registerActorMethods()
	h.registerContextMethods()
	h.registerJobMethods()
	h.registerJobLogsMethods()
	h.registerJobStopMethods()
	h.registerDrainMethods()
	h.registerPruneMethods()
	h.registerPeerMethods()
	h.registerMessageMethods()
	h.registerEventMethods()
	h.registerRunnerMethods()
	h.registerInviteMethods() // methods_invite.go
	if h.Sched != nil {
		h.registerFlowMethods()
	}
	api.AddDiscover(table, "hyphae", h.Version)
}

// Classify maps domain errors to JSON-RPC codes (the server's classifier).
func Classify(err error) int {
	switch {
	case errors.Is(err, store.ErrNotFound):
		return api.CodeNotFound
	case errors.Is(err, store.ErrDenied):
		return api.CodeDenied
	case errors.Is(err, store.ErrExists), errors.Is(err, model.ErrBadTransition), errors.Is(err, store.ErrFenced),
		errors.As(err, new(*bridge.NotPeerError)):
		return api.CodeConflict
	case errors.Is(err, store.ErrBadContext), errors.Is(err, model.ErrBadField), errors.Is(err, bridge.ErrNoRunner):
		return api.CodeInvalidParams
	}
	return 0
}
