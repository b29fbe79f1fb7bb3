package bridge

import (
	"context"
	"errors"
	"fmt"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/store"
)

// quarantined sets aside a msg_out entry that cannot be sent (poison
// quarantine, docs/idempotency.md) and reports whether it did: a message
// whose hash is missing or does not decode, or that is refused as it is
// (a validation error), goes to the context's dead letters at once with
// the reason; one whose sending keeps failing otherwise goes there after
// store.QuarantineAfter failures in a row. Before, such an entry went back
// on msg_out every second, for ever. A job refused for want of a runner
// (ErrNoRunner) is no poison: takeOne ends it as before.
func (b *Bridge) quarantined(ctx context.Context, ctxID uint64, key string, err error) bool {
	if ctx.Err() != nil || errors.Is(err, ErrNoRunner) {
		return false
	}
	reason, class := "", store.DeadInvalid
	var fe *model.FieldError
	_, lerr := b.st.Bus.LoadMessageKey(ctx, ctxID, key)
	switch {
	case errors.Is(lerr, store.ErrNotFound):
		reason, class = "message hash "+key+" does not exist", store.DeadUnusable
	case errors.As(lerr, &fe):
		reason = "invalid message: " + fe.Error()
	case isBad(err):
		reason = err.Error()
	default:
		n, cerr := b.st.Bus.CountMessageFailure(ctx, ctxID, key)
		if limit := b.st.Bus.QuarantineAfter(); cerr != nil || limit == 0 || n < limit {
			return false
		}
		reason = fmt.Sprintf("quarantined: sending failed %d times in a row; last error: %v", n, err)
		class = store.DeadFailures
	}
	if qerr := b.st.Bus.QuarantineMessage(ctx, ctxID, key, store.MsgOutKey, store.MsgOutProcessingKey, reason, class); qerr != nil {
		b.log.Warn("bridge: quarantine", "context", ctxID, "key", key, "err", qerr)
		return false
	}
	b.log.Warn("bridge: message on msg_out quarantined in dead_letter", "context", ctxID, "key", key, "reason", reason)
	return true
}
