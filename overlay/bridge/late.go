package bridge

import (
	"context"
	"strconv"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/store"
)

// lateResult keeps result p from peer from on its origin job when that job
// was given up on as lost at from for p's attempt (its runner stayed
// unreachable): the job, ended or moved on to another attempt, keeps its
// status, and a flow that settled stays so, but the result is not dropped
// (model.ExtraLateResult), so one can tell it ran there before running it
// again. It reports whether it kept it (now, or before: a resent result
// is kept and counted once); anything else (a stranger) is left to the
// caller and writes nothing.
func (b *Bridge) lateResult(ctx context.Context, from peer.ID, p *payload) bool {
	r := &model.LateResult{From: b.names.name(from), Attempt: p.Attempt, Status: model.JobStatus(p.Status),
		Result: p.Result, Error: p.Error, At: time.Now().Unix()}
	kept, dup, err := b.st.Jobs.RecordLateResult(ctx, p.OriginCtx, p.OriginJob, r)
	if err != nil || !kept {
		return false
	}
	if dup {
		return true // resent before our ack reached the runner: counted once
	}
	b.stats.lateResult()
	b.log.Warn("bridge: a result came from a runner given up on as lost: kept as late_result, the job is unchanged",
		"context", p.OriginCtx, "job", p.OriginJob, "from", r.From, "attempt", r.Attempt, "status", r.Status)
	return true
}

// giveUpSent ends the job of message m, given up on unacknowledged after
// it went to m.Dst, with reason; as for a lost runner, the job keeps where
// and which attempt it went (model.ExtraLostRunner, ExtraLostAttempt):
// the job may have arrived there with its acks lost, and a result that
// comes from there later is then kept (lateResult).
func (b *Bridge) giveUpSent(ctx context.Context, ctxID uint64, m *model.Message, reason string) {
	j := m.Job[0]
	jk := store.JobKey(j.CallerID, j.ID)
	b.sent.forget(ctxID, jk)
	fields := model.Hash{"error": reason, model.ExtraLostRunner: m.Dst,
		model.ExtraLostAttempt: strconv.FormatInt(j.Attempt, 10)}
	if err := b.st.Jobs.CompleteJob(ctx, ctxID, jk, j.Attempt, model.JobError, fields); err != nil && b.ctx.Err() == nil {
		b.log.Debug("bridge: ending a job given up on", "context", ctxID, "job", jk, "err", err)
	}
}
