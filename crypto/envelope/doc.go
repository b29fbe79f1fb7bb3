// Package envelope is the bus wire format: every message an agent sends on
// the bus (gossipsub or a direct stream) is one envelope, signed by its
// sender's actor key and carrying a payload age-encrypted to its recipient.
//
// # Wire layout (version 1)
//
// All integers are big-endian. Lengths are checked against the bytes that
// remain and the whole envelope against a maximum size (DefaultMaxSize,
// 1 MiB, unless the caller sets another).
//
//	offset  size  field
//	     0     1  version      = 1
//	     1     1  type         1 job, 2 result, 3 ack, 4 stop, 5 status,
//	                           6 error, 7 chat, 8 mail (0 and >8 invalid)
//	     2    16  message id   random; unique per logical message
//	    18     8  context id   uint64
//	    26     8  timestamp    int64, unix milliseconds (sender's clock)
//	    34     4  attempt      uint32
//	    38     1  F = len(from)   1..MaxPeerIDLen
//	    39     F  from         sender peer ID, binary multihash
//	     …     1  T = len(to)     1..MaxPeerIDLen
//	     …     T  to           recipient peer ID, binary multihash
//	     …     4  P = len(payload), uint32
//	     …     P  payload      age file (binary format) from `from` to `to`
//	     …     1  S = len(sig) must be 64
//	     …     S  signature    ed25519, by `from`
//
// With ed25519 peer IDs (38 bytes each) the fixed overhead is 185 bytes plus
// the age header (about 200 bytes) around the plaintext.
//
// Decoding is strict: a version other than 1 is rejected before anything
// else is read (a later version may change the layout), every length is
// bounded, peer IDs must be valid multihashes, and trailing bytes are an
// error. So every accepted byte string has exactly one decoding and
// Marshal(Unmarshal(b)) == b.
//
// # Payload
//
// The payload is a standard age v1 file (binary, no armour) made with
// filippo.io/age: a fresh random file key per message, the header MAC and
// the STREAM-encrypted plaintext. Its one recipient stanza is
//
//	-> hyphae-pair <base64 24-byte random nonce>
//	<base64 XChaCha20-Poly1305(K, nonce, file key)>
//
// where K is the static-static wrap key of the pair, derived with HKDF-SHA256
// from X25519(from, to) with salt from_x25519 ‖ to_x25519 and info
// "hyphae/age-pair/v1" (see package identity for the exact derivation and
// the keys). K is computed once per peer and direction and cached, so
// sealing and opening cost no X25519 operation; with age's ephemeral-static
// X25519 stanza they cost three. Open also accepts a plain age X25519
// stanza to `to`, as envelopes written before hyphae-pair carry.
//
// What this changes against age's X25519 stanza: the per-message random
// file key stays, and neither has forward secrecy. But K is shared by the
// two parties, so compromising either one's actor key exposes all their
// traffic in both directions (with age's stanza, only what was sent to the
// compromised key). In exchange the wrap is sender-authenticated: the
// payload opens only when `from` is its real sender, so a payload lifted
// into an envelope signed by another key does not open (ErrDecrypt).
//
// # Signature
//
// The signature is ed25519 over
//
//	"hyphae/envelope/v1\x00" ‖ every byte of the encoding before the S byte
//
// that is, the domain-separation string followed by the envelope without its
// signature. It covers every field, so an envelope stays verifiable at rest
// (Envelope.VerifySignature needs only the envelope). The authenticated
// sender of the carrier (the pubsub author of a gossipsub message, the
// remote peer of a direct stream) must equal the envelope's sender.
//
// # Checking a received envelope
//
// Verifier.Check runs, in this order: size, decode (incl. version), type
// known, sender = pubsub author, signature, timestamp within ±Skew of now.
// Verifier.Open then checks that the envelope is addressed to this agent
// (ErrNotForMe otherwise — to be ignored, not punished) and decrypts and
// authenticates the payload as written by `from` (ErrDecrypt otherwise). Every rejection wraps one sentinel error, and Reason maps it to a
// short stable word for metrics.
//
// Replay detection is the caller's: record ReplayKey (sender/hex id) for at
// least 2×Skew plus the sender's retransmission horizon; envelopes older than
// Skew fail Check anyway. A retransmission keeps its message id and calls
// Restamp to refresh the timestamp and signature.
package envelope
