package bridge

import (
	"testing"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/hyphae-run/hyphae/crypto/identity"
)

func TestPeerNamesAgreeWithLibp2p(t *testing.T) {
	id, err := identity.Generate()
	if err != nil {
		t.Fatal(err)
	}
	p := id.PeerID()
	n := newPeerNames()
	asCID := peer.ToCid(p).String()
	for range 2 { // once computed, once cached
		got, err := n.decode(asCID)
		if err != nil || got != p {
			t.Fatalf("decode(CID form) = %v, %v; want %v", got, err, p)
		}
		if s := n.name(p); s != p.String() {
			t.Fatalf("name after decoding the CID form = %q, want the canonical %q", s, p.String())
		}
		if got, err := n.decode(p.String()); err != nil || got != p {
			t.Fatalf("decode(canonical) = %v, %v", got, err)
		}
	}
	if _, err := n.decode("not-a-peer"); err == nil {
		t.Fatal("decode accepted garbage")
	}
	if _, err := n.decode("not-a-peer"); err == nil {
		t.Fatal("decode accepted garbage the second time (cached?)")
	}
}
