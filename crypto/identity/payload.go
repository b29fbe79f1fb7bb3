package identity

import (
	"bytes"
	"crypto/hkdf"
	"crypto/sha256"
	"errors"

	"filippo.io/age"
	"golang.org/x/crypto/chacha20poly1305"
)

// age's payload (https://age-encryption.org/v1, "Payload"): a 16-byte
// nonce, then the plaintext in chunks of 64 KiB, each sealed with
// ChaCha20-Poly1305 under HKDF-SHA256(ikm = file key, salt = nonce,
// info = "payload"); a chunk's 12-byte nonce is its index as an 11-byte
// big-endian counter and a final byte, 1 on the last chunk and 0 before.
const (
	payloadNonceSize = 16
	chunkSize        = 64 << 10
	encChunkSize     = chunkSize + chacha20poly1305.Overhead
)

// errNotOneChunk: the file is not one whose payload openOneChunk opens.
var errNotOneChunk = errors.New("not a one-chunk age file")

// openOneChunk opens an age file whose payload is a single chunk (a
// plaintext of at most 64 KiB, as every bus message is): age parses the
// header and unwraps the file key (age.DecryptHeader, which checks the
// header MAC), and the one chunk, flagged last, is opened here straight
// into a buffer of the plaintext's size. age's own readers allocate a
// 64 KiB chunk buffer per file, which on the bus was 40 % of what a
// round trip allocates. Anything else returns errNotOneChunk and is left to
// age: a longer payload, or a header this cut does not find.
func openOneChunk(ct []byte, ids ...age.Identity) ([]byte, error) {
	end := headerEnd(ct)
	if end < 0 {
		return nil, errNotOneChunk
	}
	payload := ct[end:]
	if len(payload) < payloadNonceSize+chacha20poly1305.Overhead || len(payload) > payloadNonceSize+encChunkSize {
		return nil, errNotOneChunk
	}
	fileKey, err := age.DecryptHeader(ct[:end], ids...)
	if err != nil {
		return nil, err
	}
	key, err := hkdf.Key(sha256.New, fileKey, payload[:payloadNonceSize], "payload", chacha20poly1305.KeySize)
	if err != nil {
		return nil, err
	}
	aead, err := chacha20poly1305.New(key)
	if err != nil {
		return nil, err
	}
	var nonce [chacha20poly1305.NonceSize]byte
	nonce[len(nonce)-1] = 1 // chunk 0, the last
	sealed := payload[payloadNonceSize:]
	pt, err := aead.Open(make([]byte, 0, len(sealed)-chacha20poly1305.Overhead), nonce[:], sealed, nil)
	if err != nil {
		return nil, errors.New("failed to decrypt and authenticate payload")
	}
	return pt, nil
}

// headerEnd returns the length of the binary age header that starts ct:
// through the end of its MAC line ("--- " and the MAC, the only header
// line that starts with three dashes), or -1.
func headerEnd(ct []byte) int {
	i := bytes.Index(ct, []byte("\n--- "))
	if i < 0 {
		return -1
	}
	j := bytes.IndexByte(ct[i+1:], '\n')
	if j < 0 {
		return -1
	}
	return i + 1 + j + 1
}
