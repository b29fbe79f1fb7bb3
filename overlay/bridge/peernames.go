package bridge

import (
	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/hyphae-run/hyphae/internal/boundcache"
)

// maxPeerNames bounds each direction of the cache.
const maxPeerNames = 4096

// peerNames caches peer IDs' text forms both ways. Base58 is costly per
// conversion, and one message names its peers in Redis keys, fields and
// maps many times over; a fleet has few peers.
type peerNames struct {
	str *boundcache.Cache[peer.ID, string] // canonical text forms
	ids *boundcache.Cache[string, peer.ID] // any text form that decodes
}

func newPeerNames() peerNames {
	return peerNames{str: boundcache.New[peer.ID, string](maxPeerNames),
		ids: boundcache.New[string, peer.ID](maxPeerNames)}
}

// name is p.String(), from the cache when it can be.
func (n peerNames) name(p peer.ID) string {
	if s, ok := n.str.Get(p); ok {
		return s
	}
	s := p.String()
	n.str.Put(p, s)
	return s
}

// decode is peer.Decode(s), from the cache when it can be. s may be
// another form than the canonical one (a CID, say): name still gives the
// canonical one.
func (n peerNames) decode(s string) (peer.ID, error) {
	if p, ok := n.ids.Get(s); ok {
		return p, nil
	}
	p, err := peer.Decode(s)
	if err != nil {
		return "", err
	}
	n.ids.Put(s, p)
	return p, nil
}
