package bridge

import (
	"context"
	"errors"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/store"
	"github.com/hyphae-run/hyphae/crypto/envelope"
)

// A job sent to another agent is dispatched at its origin until its result
// comes home, unless the origin learns that it started: the target's ack
// of the job says so (payload.Status "started") when the job runs by the
// time the ack leaves, and a job that starts later gets an ack of its own
// that says so (see pendingAcks). The origin then moves its record to
// started, so job status, job run --wait and flow views show the job
// running there. The notice is best-effort: a lost one only leaves the
// record dispatched until the result.

// statusStarted is an ack's Status when the acknowledged job runs.
const statusStarted = string(model.JobStarted)

// JobStarted is the runner's start hook (executor.OnJobStarted): for a job
// that came from another agent, the job's ack will tell the origin that
// it runs. It returns at once.
func (b *Bridge) JobStarted(ctxID uint64, job *model.RunnerJob) {
	o := job.Origin()
	ref, origin := o.Ref, o.Peer
	if !o.Received() {
		return // not a remote job
	}
	dst, err := b.names.decode(origin)
	if err != nil {
		return
	}
	// origin_peer is the sender's name, as onJob keys the job's ack.
	b.acks.started(origin, ref, b.cfg.ackDelay(), func() {
		b.running(func() { b.ackStarted(b.ctx, dst, ctxID, ref) })
	})
}

// ackStarted acknowledges ref to its sender, saying that its job runs in
// context target here.
func (b *Bridge) ackStarted(ctx context.Context, to peer.ID, target uint64, ref string) {
	p := &payload{AckOf: ref, Status: statusStarted}
	if err := b.deliver(ctx, to, envelope.TypeAck, target, 0, p); err != nil && ctx.Err() == nil {
		b.log.Debug("bridge: started ack", "to", b.names.name(to), "err", err)
	}
}

// sentJobStarted moves the origin job of job message key (m, or loaded
// when nil) from dispatched to started, as its recipient said. A job that
// has ended already (a result that overtook the notice), or moved on to
// another attempt, keeps its state.
func (b *Bridge) sentJobStarted(ctx context.Context, ctxID uint64, key string, m *model.Message) error {
	if m == nil {
		var err error
		if m, err = b.st.Bus.LoadMessageKey(ctx, ctxID, key); err != nil {
			return err
		}
	}
	if m.MessageType != model.MsgTypeJob || len(m.Job) != 1 {
		return nil
	}
	// Fenced on the attempt the message sent (0, any, for a raw client's):
	// a late notice from a runner given up on does not touch a new attempt.
	j := m.Job[0]
	err := b.st.Jobs.SetJobStatus(ctx, ctxID, store.JobKey(j.CallerID, j.ID), j.Attempt, model.JobStarted, nil)
	if errors.Is(err, model.ErrBadTransition) || errors.Is(err, store.ErrFenced) {
		return nil
	}
	return err
}
