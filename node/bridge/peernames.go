package bridge

import (
	"sync"

	"github.com/libp2p/go-libp2p/core/peer"
)

// maxPeerNames bounds the cache; past it, it starts again empty.
const maxPeerNames = 4096

// peerNames caches peer IDs' text forms both ways. Base58 costs ~5 µs per
// conversion, and one message names its peers in Redis keys, fields and
// maps many times over; a fleet has few peers.
type peerNames struct {
	mu  sync.Mutex
	str map[peer.ID]string // guarded by mu
	ids map[string]peer.ID // guarded by mu
}

// name is p.String(), from the cache when it can be.
func (n *peerNames) name(p peer.ID) string {
	n.mu.Lock()
	s, ok := n.str[p]
	n.mu.Unlock()
	if ok {
		return s
	}
	s = p.String()
	n.put(p, s, s)
	return s
}

// decode is peer.Decode(s), from the cache when it can be.
func (n *peerNames) decode(s string) (peer.ID, error) {
	n.mu.Lock()
	p, ok := n.ids[s]
	n.mu.Unlock()
	if ok {
		return p, nil
	}
	p, err := peer.Decode(s)
	if err != nil {
		return "", err
	}
	n.put(p, p.String(), s) // s may be another form (a CID, say)
	return p, nil
}

// put records p's canonical text form and another text s that decodes to it.
func (n *peerNames) put(p peer.ID, canonical, s string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.str == nil || len(n.ids) >= maxPeerNames {
		n.str, n.ids = map[peer.ID]string{}, map[string]peer.ID{}
	}
	n.str[p], n.ids[canonical], n.ids[s] = canonical, p, p
}
