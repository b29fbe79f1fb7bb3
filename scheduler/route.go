package scheduler

import (
	"context"

	"github.com/hyphae-run/hyphae/context/model"
	routing "github.com/hyphae-run/hyphae/context/route"
)

// route is where a job goes.
type route struct {
	local  bool
	dst    string // peer ID for the message; "" lets the bridge route
	runner string // the job's runner field
}

// route decides local or remote for node n, avoiding the peers given, by
// the one rule (context/route). A job runs here when its runner is "",
// "self" or this agent's peer ID and the local runner serves its type (an
// explicit self always runs here, where the runner reports a type it
// lacks as an error). A runner the flow leaves open goes to
// Config.PickRunner's peer only when a runner record of the flow's
// context names it (docs/design.md, "Trust"); what the scheduler cannot
// resolve (an open runner with no pick, an unknown runner:<id>) is left
// to the bridge, which holds to the same rule, with the runner as written.
func (s *Scheduler) route(ctx context.Context, r *flowRun, n *node, avoid []string) route {
	q := routing.Query{Context: r.key.ctx, To: n.pin, Type: n.job.ScriptType, Avoid: avoid}
	out, _ := routing.Resolve(ctx, routeRecords{s}, q, routing.Options{Self: s.cfg.Self,
		LocalTypes: s.cfg.LocalTypes, SelfWord: true, RecordHere: true, OnBad: routing.Defer,
		Open: routing.OpenLocalFirst, Pick: s.cfg.PickRunner})
	switch out.Kind {
	case routing.Here:
		return s.localRoute()
	case routing.Peer:
		return route{dst: out.Peer, runner: out.Peer}
	}
	return route{runner: n.pin} // Defer and OpenLocalFirst never wait nor fail
}

func (s *Scheduler) localRoute() route {
	rn := s.cfg.Self
	if rn == "" {
		rn = "self"
	}
	return route{local: true, runner: rn}
}

// routeRecords is what the routing rule reads of the store: the flow's
// context's runner records, uncached.
type routeRecords struct{ s *Scheduler }

func (v routeRecords) Runner(ctx context.Context, ctxID, id uint64) (*model.Runner, error) {
	return v.s.st.Registry.LoadRunner(ctx, ctxID, id)
}

func (v routeRecords) Runners(ctx context.Context, ctxID uint64, _ bool) ([]*model.Runner, error) {
	return v.s.st.Registry.ListRunners(ctx, ctxID)
}
