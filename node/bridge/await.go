package bridge

import (
	"fmt"
	"time"

	"github.com/hyphae-run/hyphae/context/model"
)

// resultWait is how long, after the ack, a job's result may take: the
// message's timeout_result, else the job's timeout plus the bus timeout,
// else an hour (the runners' default job timeout) plus the bus timeout.
func (b *Bridge) resultWait(m *model.Message) time.Duration {
	if m.TimeoutResult > 0 {
		return time.Duration(m.TimeoutResult) * time.Second
	}
	run := time.Hour
	if len(m.Job) == 1 && m.Job[0].Timeout > 0 {
		run = time.Duration(m.Job[0].Timeout) * time.Second
	}
	return run + b.cfg.Timeout
}

// overdue fails the jobs of context ctxID whose acknowledged message never
// brought a result back in time (the runner vanished after accepting it),
// so a waiter is never left hanging.
func (b *Bridge) overdue(ctxID uint64) {
	keys, err := b.st.AwaitDue(b.ctx, ctxID, time.Now(), 64)
	if err != nil {
		return
	}
	for _, k := range keys {
		_ = b.st.AwaitRemove(b.ctx, ctxID, k)
		m, err := b.st.LoadMessageKey(b.ctx, ctxID, k)
		if err != nil || len(m.Job) != 1 {
			continue
		}
		reason := fmt.Sprintf("no result from %s within %v of its ack", m.Dst, b.resultWait(m))
		ended, err := b.failSent(b.ctx, ctxID, m.Job[0], m.Job[0].Attempt, reason)
		switch {
		case err != nil:
			b.log.Warn("bridge: failing overdue job", "context", ctxID, "message", k, "err", err)
		case ended:
			b.log.Warn("bridge: result overdue", "context", ctxID, "message", k, "reason", reason)
			_ = b.st.SetMessageStatus(b.ctx, ctxID, k, model.MsgError, model.Hash{"error": reason})
		}
	}
}
