package scheduler

import (
	"context"
	"fmt"
	"time"

	"github.com/hyphae-run/hyphae/context/model"
)

// watchdog re-dispatches remote jobs whose runner's agent has been down
// for longer than RunnerLostAfter. Until then such a job is unknown (the
// bridge marks it, and the status shows it: model.NodeUnknown) and its
// result is taken whenever the agent returns, as Nomad keeps a
// disconnected allocation until its lost_after.
func (s *Scheduler) watchdog(ctx context.Context) {
	every := min(max(s.cfg.RunnerLostAfter/4, 10*time.Millisecond), 5*time.Second)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		s.checkRemotes(ctx)
	}
}

// checkRemotes looks at every cached flow's remote jobs.
func (s *Scheduler) checkRemotes(ctx context.Context) {
	s.mu.Lock()
	runs := make([]*flowRun, 0, len(s.runs))
	for _, r := range s.runs {
		runs = append(runs, r)
	}
	s.mu.Unlock()
	for _, r := range runs {
		s.learnPeers(ctx, r)
		r.mu.Lock()
		lost := s.lostRemotes(r)
		r.mu.Unlock()
		if len(lost) == 0 {
			continue
		}
		err := s.withRun(ctx, r.key.ctx, r.key.id, func(r *flowRun) error { return s.redispatch(ctx, r, lost) })
		if err != nil && ctx.Err() == nil {
			s.log.Warn("re-dispatching lost jobs", "flow", r.key.id, "jobs", lost, "err", err)
		}
	}
}

// learnPeers fills in the peer of remote jobs the bridge routed, from the
// message's dst once the bridge has set it.
func (s *Scheduler) learnPeers(ctx context.Context, r *flowRun) {
	r.mu.Lock()
	unknown := map[string]string{}
	for name, tr := range r.remote {
		if tr.peer == "" && tr.msgKey != "" {
			unknown[name] = tr.msgKey
		}
	}
	r.mu.Unlock()
	for name, key := range unknown {
		m, err := s.st.Bus.LoadMessageKey(ctx, r.key.ctx, key)
		if err != nil || m.Dst == "" {
			continue
		}
		r.mu.Lock()
		if tr := r.remote[name]; tr != nil && tr.msgKey == key {
			tr.peer = m.Dst
		}
		r.mu.Unlock()
	}
}

// lostRemotes updates down-since marks and lists jobs past the limit
// (caller holds r.mu).
func (s *Scheduler) lostRemotes(r *flowRun) []string {
	now := s.cfg.Now()
	var lost []string
	for _, name := range r.order {
		tr := r.remote[name]
		if tr == nil || tr.peer == "" {
			continue
		}
		switch {
		case s.cfg.PeerUp(tr.peer):
			tr.downSince = time.Time{}
		case tr.downSince.IsZero():
			tr.downSince = now
		case now.Sub(tr.downSince) >= s.cfg.RunnerLostAfter:
			lost = append(lost, name)
		}
	}
	return lost
}

// redispatch gives each lost job a new attempt on another runner, or ends
// it with an error when its retries are spent (caller holds r.mu).
func (s *Scheduler) redispatch(ctx context.Context, r *flowRun, names []string) error {
	for _, name := range names {
		if r.ended || !r.state[name].InFlight() || r.remote[name] == nil {
			continue
		}
		tr := r.remote[name]
		if err := s.redispatchOne(ctx, r, r.nodes[name], tr.peer, s.cfg.Now().Sub(tr.downSince)); err != nil {
			return err
		}
	}
	return nil
}

// redispatchOne gives up node n's attempt at peer, down for d: the job
// ends error when its retries are spent, else runs again elsewhere as a
// new attempt. Either way its error says that the lost attempt may still
// have run there, and the job keeps which runner and attempt it gave up
// on, so that a result from there later is kept (the bridge's late_result)
// rather than dropped.
func (s *Scheduler) redispatchOne(ctx context.Context, r *flowRun, n *node, peer string, d time.Duration) error {
	j, err := s.st.Jobs.LoadJobKey(ctx, r.key.ctx, n.key)
	if err != nil {
		return err
	}
	if j.Status.Terminal() {
		return s.settle(ctx, r, j)
	}
	why := model.LostRunnerError(peer, d)
	lost := model.LostRunnerFields(peer, j.Attempt, why)
	if j.Attempt > j.Retries {
		s.log.Warn("remote job lost, no retries left", "flow", r.key.id, "job", n.key, "peer", peer, "reason", why,
			"trace_id", r.trace)
		delete(r.remote, n.name)
		if err := s.st.Jobs.CompleteJob(ctx, r.key.ctx, n.key, j.Attempt, model.JobError, lost); err != nil {
			return err
		}
		s.reportLost(peer, why)
		return nil
	}
	s.reportLost(peer, why)
	s.log.Warn("remote job lost; new attempt", "flow", r.key.id, "job", n.key, "peer", peer,
		"attempt", j.Attempt+1, "reason", why, "trace_id", r.trace)
	// The new attempt shows why it runs (its error until it ends) and is
	// not unknown: its runner is another one.
	lost["error"] = fmt.Sprintf("attempt %d: %s", j.Attempt, why)
	lost[model.ExtraRunnerState], lost[model.ExtraUnreachableSince] = "", ""
	p := attempt{n: n, base: j, rt: s.route(ctx, r, n, []string{peer}), fields: lost}
	return s.send(ctx, r, nil, []attempt{p}, inFlight)
}

// reportLost tells Config.Lost (the bridge's circuit breaker) that an
// attempt at peer was given up on: the peer's fault, as for a plain job.
func (s *Scheduler) reportLost(peer, why string) {
	if s.cfg.Lost != nil && peer != "" {
		s.cfg.Lost(peer, why)
	}
}
