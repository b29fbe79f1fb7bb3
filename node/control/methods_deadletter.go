package control

import (
	"context"

	"github.com/hyphae-run/hyphae/node/api"
	"github.com/hyphae-run/hyphae/node/api/wire"
)

// registerDeadLetterDelete adds deadletter.delete: the dashboard's way to
// clear an entry once it is dealt with (retried, or not worth keeping).
func (h *Handlers) registerDeadLetterDelete() {
	api.Register(h.table, "deadletter.delete", "Remove a context's dead letters for a key (every entry naming it); "+
		"the job itself, if any, is untouched. Deleted is 0 when the key had none.", h.deleteDeadLetter)
	h.registerDeadLetterRetry() // methods_deadletter_retry.go
}

func (h *Handlers) deleteDeadLetter(ctx context.Context, p wire.DeadLetterRef) (*wire.DeadLetterDeleted, error) {
	if p.Key == "" {
		return nil, api.InvalidParams("key", "required: the key of the dead letter (deadletter.list shows it)")
	}
	if err := h.checkFlowContext(ctx, p.Context); err != nil {
		return nil, err
	}
	n, err := h.Store.Queues.DeleteDeadLetter(ctx, p.Context, p.Key)
	if err != nil {
		return nil, err
	}
	return &wire.DeadLetterDeleted{Deleted: n}, nil
}
