package envelope

import (
	"encoding/binary"
	"math"
)

// Marshal returns the wire encoding of e (see the package doc). Marshal does
// not validate: a field too long for its length prefix (a peer ID over 255
// bytes, a signature over 255 bytes, a payload over 4 GiB) is written with
// length 0 and without its bytes, so the result never decodes.
func (e *Envelope) Marshal() []byte {
	b := make([]byte, 0, e.Size())
	b = e.appendUnsigned(b)
	return appendShort(b, e.Sig)
}

// signedBytes returns Domain followed by the encoding of e without its
// signature: exactly what the sender signs.
func (e *Envelope) signedBytes() []byte {
	b := make([]byte, 0, len(Domain)+e.Size()-1-len(e.Sig))
	b = append(b, Domain...)
	return e.appendUnsigned(b)
}

// appendUnsigned appends every field except the signature.
func (e *Envelope) appendUnsigned(b []byte) []byte {
	b = append(b, e.Version, byte(e.Type))
	b = append(b, e.ID[:]...)
	b = binary.BigEndian.AppendUint64(b, e.Context)
	b = binary.BigEndian.AppendUint64(b, uint64(e.Time.UnixMilli()))
	b = binary.BigEndian.AppendUint32(b, e.Attempt)
	b = appendShort(b, []byte(e.From))
	b = appendShort(b, []byte(e.To))
	return appendLong(b, e.Payload)
}

// appendShort appends a 1-byte length and v (length 0 and nothing if v does
// not fit).
func appendShort(b, v []byte) []byte {
	if len(v) > math.MaxUint8 {
		return append(b, 0)
	}
	b = append(b, byte(len(v)))
	return append(b, v...)
}

// appendLong appends a 4-byte length and v (length 0 and nothing if v does
// not fit).
func appendLong(b, v []byte) []byte {
	if uint64(len(v)) > math.MaxUint32 {
		return binary.BigEndian.AppendUint32(b, 0)
	}
	b = binary.BigEndian.AppendUint32(b, uint32(len(v)))
	return append(b, v...)
}
