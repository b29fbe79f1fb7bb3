package scheduler

import (
	"context"
	"slices"
	"strconv"
	"strings"
)

// route is where a job goes.
type route struct {
	local  bool
	dst    string // peer ID for the message; "" lets the bridge route
	runner string // the job's runner field
}

// route decides local or remote for node n, avoiding the peers given. A
// job runs here when its runner is "", "self" or this agent's peer ID and
// the local runner serves its type (an explicit self always runs here,
// where the runner reports a type it lacks as an error).
func (s *Scheduler) route(ctx context.Context, r *flowRun, n *node, avoid []string) route {
	pin, typ := n.pin, n.job.ScriptType
	switch {
	case pin == "self" || (pin != "" && pin == s.cfg.Self):
		return s.localRoute()
	case pin == "":
		if slices.Contains(s.cfg.LocalTypes(), typ) {
			return s.localRoute()
		}
		peer := s.pick(ctx, r, typ, avoid)
		return route{dst: peer, runner: peer}
	case strings.HasPrefix(pin, "runner:"):
		return s.runnerRoute(ctx, r, pin)
	}
	return route{dst: pin, runner: pin}
}

func (s *Scheduler) localRoute() route {
	rn := s.cfg.Self
	if rn == "" {
		rn = "self"
	}
	return route{local: true, runner: rn}
}

// pick asks Config.PickRunner for a peer, and keeps its answer only when a
// runner record of the flow's context names that peer: a job whose runner
// the flow leaves open goes only to a registered runner (DESIGN §4). ""
// leaves the choice to the bridge, which holds to the same rule.
func (s *Scheduler) pick(ctx context.Context, r *flowRun, typ string, avoid []string) string {
	if s.cfg.PickRunner == nil {
		return ""
	}
	p := s.cfg.PickRunner(typ, avoid)
	if p == "" {
		return ""
	}
	rs, err := s.st.ListRunners(ctx, r.key.ctx)
	if err != nil {
		return ""
	}
	for _, rn := range rs {
		if rn.Pubkey == p && !rn.Local && (len(rn.ScriptTypes) == 0 || slices.Contains(rn.ScriptTypes, typ)) {
			return p
		}
	}
	return ""
}

// runnerRoute resolves runner:<id> through the context's runner:<id> hash:
// a local runner runs it here, another agent's gets a message to its peer
// (the job's runner becomes that peer ID); an unknown one is left to the
// bridge (runner stays runner:<id>).
func (s *Scheduler) runnerRoute(ctx context.Context, r *flowRun, pin string) route {
	id, err := strconv.ParseUint(strings.TrimPrefix(pin, "runner:"), 10, 64)
	if err != nil {
		return route{runner: pin}
	}
	rn, err := s.st.LoadRunner(ctx, r.key.ctx, id)
	switch {
	case err != nil || rn.Pubkey == "" && !rn.Local:
		return route{runner: pin}
	case rn.RunsHere(s.cfg.Self):
		return s.localRoute()
	}
	return route{dst: rn.Pubkey, runner: rn.Pubkey}
}
