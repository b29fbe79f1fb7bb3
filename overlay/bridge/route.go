package bridge

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/hyphae-run/hyphae/context/model"
)

// destination picks the recipient of m: its dst, else (for a job) the
// job's runner, else the least loaded up peer running the job's type. An
// empty result comes with the reason.
func (b *Bridge) destination(ctx context.Context, ctxID uint64, m *model.Message) (peer.ID, string) {
	if m.Dst != "" {
		p, err := b.names.decode(m.Dst)
		if err != nil {
			return "", fmt.Sprintf("dst %q is not a peer ID", m.Dst)
		}
		return p, ""
	}
	if m.MessageType != model.MsgTypeJob || len(m.Job) != 1 {
		return "", "no dst"
	}
	return b.route(ctx, ctxID, m.Job[0])
}

// route resolves a job's runner field, or picks a runner by script type.
func (b *Bridge) route(ctx context.Context, ctxID uint64, j *model.RunnerJob) (peer.ID, string) {
	r := strings.TrimPrefix(j.Runner, "runner:")
	if r != "" {
		if id, err := strconv.ParseUint(r, 10, 64); err == nil {
			rn, err := b.st.LoadRunner(ctx, ctxID, id)
			if err != nil {
				return "", fmt.Sprintf("runner:%d: %v", id, err)
			}
			p, err := b.names.decode(rn.Pubkey)
			if err != nil {
				return "", fmt.Sprintf("runner:%d has no valid pubkey", id)
			}
			return p, ""
		}
		p, err := b.names.decode(j.Runner)
		if err != nil {
			return "", fmt.Sprintf("runner %q is neither a peer ID nor runner:<id>", j.Runner)
		}
		return p, ""
	}
	return b.byType(ctx, j.ScriptType)
}

func (b *Bridge) byType(ctx context.Context, typ string) (peer.ID, string) {
	peers, err := b.tr.Peers(ctx)
	if err != nil {
		return "", "peer table: " + err.Error()
	}
	var cands []*model.Peer
	for _, p := range peers {
		if p.State == model.PeerUp && slices.Contains(p.ScriptTypes, typ) && p.PeerID != b.names.name(b.self) {
			cands = append(cands, p)
		}
	}
	sort.SliceStable(cands, func(i, k int) bool { return loadRatio(cands[i]) < loadRatio(cands[k]) })
	for _, c := range cands {
		if id, err := b.names.decode(c.PeerID); err == nil {
			return id, ""
		}
	}
	if b.cfg.LocalTypes != nil && slices.Contains(b.cfg.LocalTypes(), typ) {
		return b.self, ""
	}
	return "", fmt.Sprintf("waiting for a runner of type %q: no up peer runs it", typ)
}

func loadRatio(p *model.Peer) float64 {
	if p.Capacity <= 0 {
		return float64(p.Load)
	}
	return float64(p.Load) / float64(p.Capacity)
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
