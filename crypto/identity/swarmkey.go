package identity

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"fmt"

	"github.com/libp2p/go-libp2p/core/pnet"
)

// swarmKeyHeader is the libp2p v1 PSK file header, base16 encoding.
const swarmKeyHeader = "/key/swarm/psk/1.0.0/\n/base16/\n"

// maxSwarmKeyFileSize bounds what LoadSwarmKey reads; a valid file is ~100 bytes.
const maxSwarmKeyFileSize = 4096

// GenerateSwarmKey returns the contents of a new libp2p private-network key
// file: the v1 PSK header, base16 encoding, 32 random bytes as 64 hex digits
// and a newline. Peers sharing the file form a private network.
func GenerateSwarmKey() []byte {
	key := make([]byte, 32)
	_, _ = rand.Read(key) // crypto/rand.Read never fails (it aborts the program instead)
	out := make([]byte, 0, len(swarmKeyHeader)+65)
	out = append(out, swarmKeyHeader...)
	out = hex.AppendEncode(out, key)
	return append(out, '\n')
}

// LoadSwarmKey reads a libp2p private-network key file (any encoding pnet
// accepts: base16, base64 or bin). Missing file: ErrNotFound; bad contents:
// ErrBadSwarmKey.
func LoadSwarmKey(path string) (pnet.PSK, error) {
	data, err := readBounded(path, maxSwarmKeyFileSize, ErrBadSwarmKey)
	if err != nil {
		return nil, fmt.Errorf("identity.LoadSwarmKey: %w", err)
	}
	psk, err := pnet.DecodeV1PSK(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("identity.LoadSwarmKey %s: %w: %w", path, ErrBadSwarmKey, err)
	}
	return psk, nil
}
