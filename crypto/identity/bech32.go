package identity

import "strings"

// Bech32 encoding (BIP 173), needed because age exposes X25519 keys only as
// Bech32 strings. Only encoding is implemented: age's own parsers decode and
// validate the strings this produces.

const bech32Charset = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"

// bech32Polymod is the BCH checksum over 5-bit values.
func bech32Polymod(values []byte) uint32 {
	gen := [5]uint32{0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3}
	chk := uint32(1)
	for _, v := range values {
		top := chk >> 25
		chk = (chk&0x1ffffff)<<5 ^ uint32(v)
		for i := range 5 {
			if (top>>i)&1 == 1 {
				chk ^= gen[i]
			}
		}
	}
	return chk
}

// bech32HRPExpand returns the human-readable part as checksum input.
func bech32HRPExpand(hrp string) []byte {
	out := make([]byte, 0, 2*len(hrp)+1)
	for i := 0; i < len(hrp); i++ {
		out = append(out, hrp[i]>>5)
	}
	out = append(out, 0)
	for i := 0; i < len(hrp); i++ {
		out = append(out, hrp[i]&31)
	}
	return out
}

// toBase32 regroups 8-bit bytes into 5-bit values, zero-padding the tail.
func toBase32(data []byte) []byte {
	out := make([]byte, 0, (len(data)*8+4)/5)
	var acc uint32
	bits := 0
	for _, b := range data {
		acc = acc<<8 | uint32(b)
		bits += 8
		for bits >= 5 {
			bits -= 5
			out = append(out, byte(acc>>bits)&31)
		}
	}
	if bits > 0 {
		out = append(out, byte(acc<<(5-bits))&31)
	}
	return out
}

// bech32Encode encodes data under hrp. An upper-case hrp yields an
// all-upper-case string (the checksum is always over the lower-case form).
func bech32Encode(hrp string, data []byte) string {
	lower := strings.ToLower(hrp)
	values := toBase32(data)
	input := append(bech32HRPExpand(lower), values...)
	input = append(input, 0, 0, 0, 0, 0, 0)
	mod := bech32Polymod(input) ^ 1
	var sb strings.Builder
	sb.WriteString(lower)
	sb.WriteByte('1')
	for _, v := range values {
		sb.WriteByte(bech32Charset[v])
	}
	for i := range 6 {
		sb.WriteByte(bech32Charset[(mod>>(5*(5-i)))&31])
	}
	if hrp != lower {
		return strings.ToUpper(sb.String())
	}
	return sb.String()
}
