package bridge

import (
	"errors"
	"sync"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/store"
)

// A job sent to an agent that becomes unreachable is not failed when the
// agent has been away for a while: as Nomad's disconnected allocations,
// it becomes unknown (model.ExtraRunnerState unreachable, shown as the
// state "unknown"; its seed status is left alone) once the agent has been
// down for Config.RunnerGrace, and is reconciled when the agent returns:
// the mark goes, and the result, which the agent keeps resending, is
// accepted as any other. Only after Config.RunnerLostAfter is a job given
// up on as lost (a flow's job by the scheduler, which may rerun it), with
// an error that says it may still have run there; a result that comes
// from there later is kept beside the job (late.go).

// sweepMax bounds the awaiting jobs one look reads per context.
const sweepMax = 10000

// sweepRunners looks at the jobs awaiting a result from agents that have
// been down for the grace (marks them unknown; gives plain jobs up past
// RunnerLostAfter) or that came back (clears the marks). A look at a down
// agent's jobs happens once when its grace ends and again when the
// earliest of its jobs reaches the limit, not on every pass.
func (b *Bridge) sweepRunners() {
	now := time.Now()
	down, back := b.down.due(now, b.cfg.RunnerGrace)
	if len(down) == 0 && len(back) == 0 {
		return
	}
	next := make(map[peer.ID]time.Time, len(down))
	failed := false
	for _, ctxID := range b.contextIDs() {
		keys, err := b.st.Bus.AwaitList(b.ctx, ctxID, sweepMax)
		if err != nil {
			failed = true // look again at the next pass
			continue
		}
		for _, k := range keys {
			b.sweepOne(ctxID, k, now, down, back, next)
		}
	}
	if failed {
		return
	}
	for id := range down {
		b.down.later(id, next[id]) // zero: no job left to give up on
	}
	for id, n := range b.marks.count(down) {
		b.log.Warn("bridge: runner unreachable: its jobs are unknown until it returns",
			"peer", b.names.name(id), "since", down[id].Format(time.RFC3339), "jobs", n)
	}
}

// sweepOne deals with awaiting message k of context ctxID: clears its
// job's mark if its agent is back, marks it if down, and gives a plain
// job up once past the limit; next collects each down agent's earliest
// limit still ahead.
func (b *Bridge) sweepOne(ctxID uint64, k string, now time.Time, down map[peer.ID]time.Time,
	back map[peer.ID]bool, next map[peer.ID]time.Time) {
	m, err := b.st.Bus.LoadMessageKey(b.ctx, ctxID, k)
	if err != nil || m.MessageType != model.MsgTypeJob || len(m.Job) != 1 {
		return
	}
	dst, err := b.names.decode(m.Dst)
	if err != nil {
		return
	}
	j := m.Job[0]
	jk := store.JobKey(j.CallerID, j.ID)
	if back[dst] {
		b.reachable(ctxID, jk, j.Attempt)
		return
	}
	since, ok := down[dst]
	if !ok {
		return
	}
	since, marked, err := b.st.Jobs.MarkUnreachable(b.ctx, ctxID, jk, j.Attempt, since)
	if err != nil || !marked {
		return
	}
	b.marks.add(ctxID, jk, dst)
	if j.FlowID != 0 || b.cfg.RunnerLostAfter <= 0 { // the scheduler decides for a flow's job
		return
	}
	if at := since.Add(b.cfg.RunnerLostAfter); now.Before(at) {
		if n := next[dst]; n.IsZero() || at.Before(n) {
			next[dst] = at
		}
		return
	}
	b.lose(ctxID, k, m, now.Sub(since))
}

// lose ends the job of awaiting message k (m), whose agent has been
// unreachable for d, past RunnerLostAfter: error, saying that it may
// still have run there; its message ends with it.
func (b *Bridge) lose(ctxID uint64, k string, m *model.Message, d time.Duration) {
	j := m.Job[0]
	jk := store.JobKey(j.CallerID, j.ID)
	reason := model.LostRunnerError(m.Dst, d)
	_ = b.st.Bus.AwaitRemove(b.ctx, ctxID, k)
	b.sent.forget(ctxID, jk)
	b.marks.drop(ctxID, jk)
	err := b.st.Jobs.CompleteJob(b.ctx, ctxID, jk, j.Attempt, model.JobError, model.LostRunnerFields(m.Dst, j.Attempt, reason))
	switch {
	case errors.Is(err, store.ErrFenced), errors.Is(err, model.ErrBadTransition):
		return // it ended or moved on meanwhile
	case err != nil:
		b.log.Warn("bridge: giving up on a job whose runner stayed unreachable", "context", ctxID, "job", jk, "err", err)
		return
	}
	b.log.Warn("bridge: job lost", "context", ctxID, "job", jk, "reason", reason)
	b.fault(m, reason) // its circuit breaker counts it (breaker_route.go)
	_ = b.st.Bus.SetMessageStatus(b.ctx, ctxID, k, model.MsgError, model.Hash{"error": reason})
}

// reachable clears the unknown mark of job jk's attempt: its agent is
// back.
func (b *Bridge) reachable(ctxID uint64, jk string, attempt int64) {
	b.marks.drop(ctxID, jk)
	if err := b.st.Jobs.ClearUnreachable(b.ctx, ctxID, jk, attempt); err != nil && b.ctx.Err() == nil {
		b.log.Warn("bridge: clearing a job's unknown state", "context", ctxID, "job", jk, "err", err)
	}
}

// reported clears the unknown mark of sent job jk, whose result for
// attempt has just been written, if this run marked it (a mark an earlier
// run left is cleared when its agent comes back, or ignored once the job
// ended: model.RunnerJob.Unreachable).
func (b *Bridge) reported(ctxID uint64, jk string, attempt int64) {
	if b.marks.has(ctxID, jk) {
		b.reachable(ctxID, jk, attempt)
	}
}

// markedJobs remembers the jobs this run marked unknown, and for which
// agent, so that a result clears the mark without a read per result.
type markedJobs struct {
	mu sync.Mutex
	m  map[string]peer.ID // "<ctx>/<job key>" → agent; guarded by mu
}

// maxMarked bounds markedJobs; a mark not remembered is cleared when its
// agent comes back.
const maxMarked = 100000

func (s *markedJobs) add(ctxID uint64, jk string, p peer.ID) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil {
		s.m = map[string]peer.ID{}
	}
	if len(s.m) < maxMarked {
		s.m[sentKey(ctxID, jk)] = p
	}
}

func (s *markedJobs) drop(ctxID uint64, jk string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.m, sentKey(ctxID, jk))
}

func (s *markedJobs) has(ctxID uint64, jk string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.m[sentKey(ctxID, jk)]
	return ok
}

// count is how many jobs are marked for each of peers.
func (s *markedJobs) count(peers map[peer.ID]time.Time) map[peer.ID]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[peer.ID]int{}
	for _, p := range s.m {
		if _, ok := peers[p]; ok {
			out[p]++
		}
	}
	return out
}
