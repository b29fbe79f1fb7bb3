package bridge

import (
	"context"
	"fmt"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/hyphae-run/hyphae/context/model"
)

// toRegistered is the recipient of a chat or mail message without dst
// (issue 39: no seed names one): as for a job left to the agent, a runner
// registered in the context (a record naming another agent), the least
// loaded of those up whose circuit breaker lets it through. With none up
// the message waits, saying why; with none registered it waits for one.
func (b *Bridge) toRegistered(ctx context.Context, ctxID uint64) (peer.ID, string, error) {
	v := routeView{b}
	peers, err := v.Peers(ctx)
	if err != nil {
		return "", "no dst; peer table: " + err.Error(), nil
	}
	rows := make(map[string]*model.Peer, len(peers))
	for _, p := range peers {
		if _, refused := v.Refused(p.PeerID); p.State == model.PeerUp && !refused {
			rows[p.PeerID] = p
		}
	}
	rs, err := v.Runners(ctx, ctxID, true)
	if err != nil {
		return "", "no dst; runner records: " + err.Error(), nil
	}
	self := b.names.name(b.self)
	var pick *model.Peer
	registered := 0
	for _, rn := range rs {
		if rn.RunsHere(self) || rn.Pubkey == "" {
			continue
		}
		registered++
		if row := rows[rn.Pubkey]; row != nil && (pick == nil || loadRatio(row) < loadRatio(pick)) {
			pick = row
		}
	}
	switch {
	case pick != nil:
		p, err := b.names.decode(pick.PeerID)
		if err != nil {
			return "", fmt.Sprintf("no dst; registered runner %q is not a peer ID", pick.PeerID), nil
		}
		return p, "", nil
	case registered > 0:
		return "", fmt.Sprintf("no dst; waiting for a runner registered in context %d to be up", ctxID), nil
	}
	return "", fmt.Sprintf("no dst, and no runner registered in context %d (hyphae runner create %d --peer <id>)",
		ctxID, ctxID), nil
}

func loadRatio(p *model.Peer) float64 {
	if p.Capacity <= 0 {
		return float64(p.Load)
	}
	return float64(p.Load) / float64(p.Capacity)
}
