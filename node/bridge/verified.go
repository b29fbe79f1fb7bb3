package bridge

import (
	"crypto/sha256"
	"sync"

	"github.com/hyphae-run/hyphae/crypto/envelope"
)

// verified remembers envelopes the topic validator has checked, by the
// hash of their bytes, so receive does not verify the signature twice.
// It is bounded: when full it is cleared, and receive falls back to a
// full check.
type verified struct {
	mu sync.Mutex
	m  map[[32]byte]*envelope.Envelope // guarded by mu
}

const verifiedMax = 4096

func (v *verified) put(data []byte, env *envelope.Envelope) {
	k := sha256.Sum256(data)
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.m == nil || len(v.m) >= verifiedMax {
		v.m = make(map[[32]byte]*envelope.Envelope)
	}
	v.m[k] = env
}

// take returns and forgets the checked envelope of data, or nil.
func (v *verified) take(data []byte) *envelope.Envelope {
	k := sha256.Sum256(data)
	v.mu.Lock()
	defer v.mu.Unlock()
	env := v.m[k]
	delete(v.m, k)
	return env
}
