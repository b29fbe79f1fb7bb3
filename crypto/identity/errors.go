package identity

import "errors"

// Sentinel errors. Every error returned by this package wraps one of these
// (test with errors.Is), together with the operation and, where there is one,
// the path involved.
var (
	// ErrExists: Create found a key file already at the path; it never
	// overwrites one.
	ErrExists = errors.New("key file already exists")
	// ErrNotFound: Load or LoadSwarmKey found no file at the path.
	ErrNotFound = errors.New("key file not found")
	// ErrCorruptKey: the key file (or key) is not a valid ed25519 private key.
	ErrCorruptKey = errors.New("corrupt key")
	// ErrUnsupportedKey: the key or peer ID is not ed25519 (or carries no
	// inline public key, like sha256-hashed RSA peer IDs), or is a
	// low-order point that gives no pairwise key.
	ErrUnsupportedKey = errors.New("unsupported key type, want ed25519")
	// ErrBadSignature: a signature does not verify against the peer ID.
	ErrBadSignature = errors.New("bad signature")
	// ErrDecrypt: a ciphertext could not be decrypted with this identity
	// (wrong recipient or sender, tampered or malformed ciphertext, or a
	// sender whose key is unusable).
	ErrDecrypt = errors.New("decryption failed")
	// ErrInsecureMode: CheckMode found a key file readable or writable by
	// group or others. Load still succeeds; the caller should warn.
	ErrInsecureMode = errors.New("key file permissions too open, want 0600")
	// ErrBadSwarmKey: a swarm key file is not a valid libp2p v1 PSK.
	ErrBadSwarmKey = errors.New("bad swarm key")
)

// errBadPairStanza: a hyphae-pair stanza that is not well formed (argument
// count, nonce encoding or size, body size). Like age with its own stanza
// types, this is a hard error rather than "not for this identity"; callers
// see it wrapped in ErrDecrypt.
var errBadPairStanza = errors.New("malformed hyphae-pair stanza")
