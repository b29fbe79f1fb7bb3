package bridge

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/store"
)

// destination picks the recipient of m: its dst, else (for a job) the
// job's runner, else one the agent chooses (byType). An empty result comes
// with the reason it waits; err (wrapping ErrNoRunner) says the message
// can never go.
func (b *Bridge) destination(ctx context.Context, ctxID uint64, m *model.Message) (peer.ID, string, error) {
	if m.Dst != "" {
		p, err := b.names.decode(m.Dst)
		if err != nil {
			return "", fmt.Sprintf("dst %q is not a peer ID", m.Dst), nil
		}
		return p, "", nil
	}
	if m.MessageType != model.MsgTypeJob || len(m.Job) != 1 {
		return "", "no dst", nil
	}
	return b.route(ctx, ctxID, m.Job[0])
}

// route resolves a job's runner field (a peer ID the user named, or
// runner:<id>, a record of the context), or leaves the choice to byType.
func (b *Bridge) route(ctx context.Context, ctxID uint64, j *model.RunnerJob) (peer.ID, string, error) {
	r := strings.TrimPrefix(j.Runner, "runner:")
	if r == "" {
		return b.byType(ctx, ctxID, j.ScriptType)
	}
	if id, err := strconv.ParseUint(r, 10, 64); err == nil {
		rn, err := b.st.LoadRunner(ctx, ctxID, id)
		if err != nil {
			return "", fmt.Sprintf("runner:%d: %v", id, err), nil
		}
		p, err := b.names.decode(rn.Pubkey)
		if err != nil {
			return "", fmt.Sprintf("runner:%d has no valid pubkey", id), nil
		}
		return p, "", nil
	}
	p, err := b.names.decode(j.Runner)
	if err != nil {
		return "", fmt.Sprintf("runner %q is neither a peer ID nor runner:<id>", j.Runner), nil
	}
	return p, "", nil
}

// byType chooses where a job of type typ runs when the choice is left to
// the agent: the least loaded runner registered in context ctxID that is
// up and runs typ (see choose), else this agent when its runner serves
// typ. With neither, it waits when a registered runner may run typ later,
// and fails (ErrNoRunner) when none can.
func (b *Bridge) byType(ctx context.Context, ctxID uint64, typ string) (peer.ID, string, error) {
	peers, err := b.tr.Peers(ctx)
	if err != nil {
		return "", "peer table: " + err.Error(), nil
	}
	peers = b.hideRefused(peers) // an open circuit breaker: as if down (breaker_route.go)
	self := b.names.name(b.self)
	for pass := 0; pass < 2; pass++ {
		rs, err := b.runners.of(ctx, b.st, ctxID, pass > 0)
		if err != nil {
			return "", "runner records: " + err.Error(), nil
		}
		c := choose(rs, peers, typ, self)
		switch {
		case c.runner != nil:
			if p, ok := b.confirm(ctx, ctxID, c.runner, typ); ok {
				return p, "", nil
			}
			continue // the list predates a change: read it again
		case b.cfg.LocalTypes != nil && slices.Contains(b.cfg.LocalTypes(), typ),
			store.DeclaresExternal(rs, typ): // an external worker here runs it (external.go)
			return b.self, "", nil
		case len(c.waiting) > 0:
			return "", fmt.Sprintf("waiting for a runner of type %q: no runner registered in context %d "+
				"that runs it is up (%s)", typ, ctxID, strings.Join(b.breakerNotes(c.waiting), ", ")), nil
		case pass == 0:
			continue // a runner registered since the list was read counts
		}
		return "", "", &noRunnerError{ctxID: ctxID, typ: typ}
	}
	return "", "the runner records changed while choosing", nil
}

// confirm reads runner record r again and returns its agent if the record
// still names it for type typ: a list from the cache may predate a
// revocation.
func (b *Bridge) confirm(ctx context.Context, ctxID uint64, r *model.Runner, typ string) (peer.ID, bool) {
	now, err := b.st.LoadRunner(ctx, ctxID, r.ID)
	if err != nil || now.Pubkey != r.Pubkey || now.Local {
		return "", false
	}
	if len(now.ScriptTypes) > 0 && !slices.Contains(now.ScriptTypes, typ) {
		return "", false
	}
	p, err := b.names.decode(now.Pubkey)
	return p, err == nil
}

// outgoing builds the payload of an outbox message being (re)sent, from
// the message and its job as they are in the store.
func (b *Bridge) outgoing(ctx context.Context, ctxID uint64, key string, m *model.Message,
	job *model.RunnerJob) (*built, error) {
	if m.MessageType == model.MsgTypeResult {
		return b.resultPayload(ctx, ctxID, key, m)
	}
	if pre := fresh(ctxID, key, m, job); pre != nil {
		return pre, nil
	}
	return nil, fmt.Errorf("cannot send message_type %q", m.MessageType)
}
