package invite

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"strconv"
)

const secretLen = 32

// newSecret is a fresh one-time secret and invite id.
func newSecret() (id string, secret []byte) {
	var b [8 + secretLen]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read does not fail
	return hex.EncodeToString(b[:8]), b[8:]
}

// KeyOf is the key alice stores for secret: the MAC's key.
func KeyOf(secret []byte) []byte {
	h := sha256.New()
	h.Write([]byte("hyphae-invite-key/1"))
	h.Write(secret)
	return h.Sum(nil)
}

// message is M of the package doc.
func message(id, alice, bob string, t int64) []byte {
	return []byte("hyphae-invite/1\n" + id + "\n" + alice + "\n" + bob + "\n" + strconv.FormatInt(t, 10))
}

// macOf is hex HMAC-SHA256(key, m).
func macOf(key, m []byte) string {
	h := hmac.New(sha256.New, key)
	h.Write(m)
	return hex.EncodeToString(h.Sum(nil))
}

// signed is what bob signs: M, a newline and the MAC.
func signed(m []byte, mac string) []byte {
	return append(append(append([]byte{}, m...), '\n'), mac...)
}
