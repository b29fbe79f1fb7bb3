package control

import (
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/peer"
)

// peerIDOf reads an actor's or runner's public key as the seeds give it —
// a peer ID (12D3KooW…), or an ed25519 public key in hex: the 32 raw
// bytes, or libp2p's encoding of the key (optionally with 0x) — and
// returns the peer ID the store keeps as its pubkey.
func peerIDOf(s string) (string, error) {
	if id, err := peer.Decode(s); err == nil {
		return id.String(), nil
	}
	b, err := hex.DecodeString(strings.TrimPrefix(strings.TrimPrefix(s, "0x"), "0X"))
	if err != nil || len(b) == 0 {
		return "", fmt.Errorf("%q is neither a peer ID nor a hex ed25519 public key", s)
	}
	var pk crypto.PubKey
	if len(b) == 32 {
		pk, err = crypto.UnmarshalEd25519PublicKey(b)
	} else {
		pk, err = crypto.UnmarshalPublicKey(b)
	}
	if err != nil {
		return "", fmt.Errorf("%q is not an ed25519 public key: %v", s, err)
	}
	if pk.Type() != crypto.Ed25519 {
		return "", fmt.Errorf("%q is a %s key; actors and runners use ed25519", s, pk.Type())
	}
	id, err := peer.IDFromPublicKey(pk)
	if err != nil {
		return "", fmt.Errorf("peer ID of %q: %v", s, err)
	}
	return id.String(), nil
}
