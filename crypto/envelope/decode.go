package envelope

import (
	"encoding/binary"
	"fmt"

	"github.com/libp2p/go-libp2p/core/peer"
)

// Unmarshal decodes one envelope. maxSize bounds len(b); 0 or less means
// DefaultMaxSize. It checks structure only (see Verifier.Check for the rest)
// and never panics. The result does not alias b.
func Unmarshal(b []byte, maxSize int) (*Envelope, error) {
	env, _, err := unmarshalSigned(b, maxSize)
	return env, err
}

// unmarshalSigned is Unmarshal that also returns the bytes the signature
// covers, Domain ‖ b without the signature. Both share one copy of b: as
// the encoding is canonical, that is exactly what signedBytes would rebuild.
func unmarshalSigned(b []byte, maxSize int) (*Envelope, []byte, error) {
	if maxSize <= 0 {
		maxSize = DefaultMaxSize
	}
	if len(b) > maxSize {
		return nil, nil, fmt.Errorf("envelope.Unmarshal: %w: %d bytes, limit %d", ErrOversized, len(b), maxSize)
	}
	if len(b) == 0 {
		return nil, nil, fmt.Errorf("envelope.Unmarshal: %w: empty", ErrMalformed)
	}
	if b[0] != Version {
		return nil, nil, fmt.Errorf("envelope.Unmarshal: %w: %d", ErrBadVersion, b[0])
	}
	buf := make([]byte, len(Domain)+len(b))
	copy(buf, Domain)
	copy(buf[len(Domain):], b)
	env, err := decode(&reader{b: buf[len(Domain):]})
	if err != nil {
		return nil, nil, fmt.Errorf("envelope.Unmarshal: %w: %w", ErrMalformed, err)
	}
	n := len(buf) - 1 - SigSize // decode checked that the signature ends b
	return env, buf[:n:n], nil
}

// decode reads every field from r, which must be consumed exactly.
func decode(r *reader) (*Envelope, error) {
	env := &Envelope{Version: r.u8(), Type: Type(r.u8())}
	copy(env.ID[:], r.take(IDSize))
	env.Context = r.u64()
	env.Time = msTime(int64(r.u64()))
	env.Attempt = r.u32()
	env.From = r.peerID("from")
	env.To = r.peerID("to")
	env.Payload = r.take(int(r.u32()))
	sigLen := int(r.u8())
	if r.err == nil && sigLen != SigSize {
		return nil, fmt.Errorf("signature length %d, want %d", sigLen, SigSize)
	}
	env.Sig = r.take(sigLen)
	if r.err == nil && r.off != len(r.b) {
		return nil, fmt.Errorf("%d trailing bytes", len(r.b)-r.off)
	}
	return env, r.err
}

// reader is a bounds-checked cursor. After the first error every read
// returns zero values and err keeps that first error.
type reader struct {
	b   []byte
	off int
	err error
}

// take returns the next n bytes (sharing r.b), or nil and sets err.
func (r *reader) take(n int) []byte {
	if r.err != nil {
		return nil
	}
	if n < 0 || n > len(r.b)-r.off {
		r.err = fmt.Errorf("truncated at offset %d: need %d bytes, have %d", r.off, n, len(r.b)-r.off)
		return nil
	}
	v := r.b[r.off : r.off+n : r.off+n]
	r.off += n
	return v
}

func (r *reader) u8() uint8 {
	if v := r.take(1); v != nil {
		return v[0]
	}
	return 0
}

func (r *reader) u32() uint32 {
	if v := r.take(4); v != nil {
		return binary.BigEndian.Uint32(v)
	}
	return 0
}

func (r *reader) u64() uint64 {
	if v := r.take(8); v != nil {
		return binary.BigEndian.Uint64(v)
	}
	return 0
}

// peerID reads a 1-byte length and a binary peer ID (a valid multihash of
// 1..MaxPeerIDLen bytes).
func (r *reader) peerID(field string) peer.ID {
	n := int(r.u8())
	if r.err == nil && (n == 0 || n > MaxPeerIDLen) {
		r.err = fmt.Errorf("%s peer ID length %d, want 1..%d", field, n, MaxPeerIDLen)
	}
	v := r.take(n)
	if r.err != nil {
		return ""
	}
	id, err := peer.IDFromBytes(v)
	if err != nil {
		r.err = fmt.Errorf("%s peer ID: %w", field, err)
	}
	return id
}
