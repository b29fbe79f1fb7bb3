package bridge

import (
	"context"
	"fmt"

	"github.com/libp2p/go-libp2p/core/peer"
)

// refused counts a message from peer from that this agent refused after
// it passed the inbox validator (reason labels the rejected counter) and
// holds it against from (Transport.Penalize): repeated refusals cost the
// sender peer score and get its frames rate limited (docs/design.md, "Between agents"). A
// refused message changes nothing here; err, when given, is logged with
// it (at most once per sender and reason every 10 s).
func (b *Bridge) refused(from peer.ID, reason string, err error) {
	b.stats.reject(b.log, b.names.name(from), reason, err)
	if from != b.self {
		b.tr.Penalize(from, reason)
	}
}

// ourRef parses ref, naming one of our messages, from an answer of from's.
// A ref that does not parse or names a context that does not exist here
// is refused as reason (ok false, no error); err is store trouble.
func (b *Bridge) ourRef(ctx context.Context, from peer.ID, ref, reason string) (ctxID uint64, key string, ok bool, err error) {
	ctxID, key, err = parseRef(ref)
	if err != nil {
		b.refused(from, reason, err)
		return 0, "", false, nil
	}
	switch has, err := b.hasContext(ctx, ctxID); {
	case err != nil:
		return 0, "", false, err
	case !has:
		b.refused(from, reason, fmt.Errorf("ref %q: no context %d here", ref, ctxID))
		return 0, "", false, nil
	}
	return ctxID, key, true, nil
}
