package overlay

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"fmt"

	"github.com/libp2p/go-libp2p/core/pnet"
)

// NewSwarmKey generates a private-network key and returns it with its
// encoding in the usual swarm.key file format (/key/swarm/psk/1.0.0/, base16).
func NewSwarmKey() (pnet.PSK, []byte, error) {
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		return nil, nil, fmt.Errorf("overlay.NewSwarmKey: %w", err)
	}
	file := []byte("/key/swarm/psk/1.0.0/\n/base16/\n" + hex.EncodeToString(key) + "\n")
	return pnet.PSK(key), file, nil
}

// DecodeSwarmKey parses a swarm.key file (base16, base64 or bin encodings).
func DecodeSwarmKey(file []byte) (pnet.PSK, error) {
	psk, err := pnet.DecodeV1PSK(bytes.NewReader(file))
	if err != nil {
		return nil, fmt.Errorf("overlay.DecodeSwarmKey: %w", err)
	}
	return psk, nil
}
