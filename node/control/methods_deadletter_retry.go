package control

import (
	"context"
	"errors"
	"strings"

	"github.com/hyphae-run/hyphae/context/store"
	"github.com/hyphae-run/hyphae/node/api"
	"github.com/hyphae-run/hyphae/node/api/wire"
)

// registerDeadLetterRetry adds deadletter.retry: a quarantined job runs
// again with a fresh count of failures, a quarantined message goes back on
// the list it came from, once fixed (poison quarantine, docs/idempotency.md).
func (h *Handlers) registerDeadLetterRetry() {
	api.Register(h.table, "deadletter.retry", "Put a dead letter's job or message back: a job that ended error "+
		"(quarantined after failures in a row, or invalid once its hash is fixed) is queued again as a new attempt "+
		"with a fresh count of failures; a message (message:<caller>:<id>) goes back on msg_out or msg_in, status "+
		"dispatched, once it decodes. Its dead-letter entries are removed.", h.retryDeadLetter)
}

func (h *Handlers) retryDeadLetter(ctx context.Context, p wire.DeadLetterRef) (*wire.DeadLetterRetried, error) {
	if p.Key == "" {
		return nil, api.InvalidParams("key", "required: the key of the dead letter (deadletter.list shows it)")
	}
	if err := h.checkFlowContext(ctx, p.Context); err != nil {
		return nil, err
	}
	out := &wire.DeadLetterRetried{Key: p.Key}
	switch {
	case strings.HasPrefix(p.Key, "message:"):
		list, err := h.Store.Bus.RetryMessage(ctx, p.Context, p.Key)
		if errors.Is(err, store.ErrStillBad) || errors.Is(err, store.ErrNotFound) {
			return nil, api.Errorf(api.CodeConflict, "%v: fix the message hash, then retry", err)
		}
		if err != nil {
			return nil, err
		}
		out.Kind, out.Queue = "message", list
		return out, nil
	case strings.HasPrefix(p.Key, "job:"):
		j, err := h.retryJob(ctx, wire.JobRef(p))
		if err != nil {
			return nil, err
		}
		out.Kind, out.Queue, out.Job = "job", store.QueueKey(j.Type), j
	default:
		return nil, api.InvalidParams("key", "%q: want job:<caller>:<id> or message:<caller>:<id>", p.Key)
	}
	n, err := h.Store.Queues.DeleteDeadLetter(ctx, p.Context, p.Key)
	if err != nil {
		return nil, err
	}
	out.Deleted = n
	return out, nil
}
