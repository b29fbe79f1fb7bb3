// Package identity holds the agent's actor key and everything derived from it.
//
// Every agent has exactly one ed25519 key, the actor key. Its libp2p peer ID
// (12D3KooW…) is the actor's public identity: the public key is inlined in the
// peer ID, so a peer ID alone is enough to verify a signature from that actor
// (Verify) and to encrypt to it (RecipientFor, Encrypt).
//
// # Key file
//
// The key lives in <data_dir>/actor.key, created by Create (hyphae init) with
// mode 0600 and never overwritten. The file holds exactly the bytes of
// libp2p's crypto.MarshalPrivateKey for an ed25519 key: a protobuf message
// {1: KeyType = 1 (Ed25519), 2: Data = 64 bytes seed‖public key}, 68 bytes in
// all, no armour and no trailing newline. That is the same encoding libp2p
// uses everywhere for private keys, so other libp2p tools can read it. Load
// rejects anything that is not an ed25519 key, or whose public half does not
// match its seed; it accepts a file with loose permissions, which CheckMode
// reports so that the caller can warn.
//
// # Age recipient
//
// Payloads are encrypted with age (https://age-encryption.org). The actor
// key doubles as a standard age X25519 key pair, as described in
// https://words.filippo.io/using-ed25519-keys-for-encryption/:
//
//   - recipient: the ed25519 public point converted to its Montgomery
//     u-coordinate (birational map Edwards → Montgomery), encoded as the usual
//     "age1…" Bech32 string;
//   - identity: the X25519 scalar is the first 32 bytes of SHA-512(seed),
//     which is the very scalar ed25519 itself uses, so the two agree.
//
// The result interoperates with the age command line tool: a file encrypted
// with `age -r <AgeRecipient()>` decrypts with the agent's key. X25519
// recipients were chosen over agessh ssh-ed25519 ones because they need
// fewer scalar multiplications (a 1 KiB encrypt+decrypt measured about a
// third faster) and their stanzas carry no fingerprint of the recipient.
//
// Converting a peer ID to a recipient costs a point decompression, so
// RecipientFor caches the result in a small bounded cache.
//
// # Pairwise stanzas (EncryptTo, DecryptFrom)
//
// Encrypt is plain age: each file key is wrapped for an X25519 recipient
// with a fresh ephemeral key, which costs a key generation and an ECDH to
// write and an ECDH to read, and says nothing about the writer. Agents on
// the bus always know both ends of a message (the sender signs it), so
// Identity.EncryptTo wraps the file key with a static-static key instead.
// The result is still a standard age v1 file made by age.Encrypt — fresh
// random file key, header MAC, STREAM payload — with one custom stanza:
//
//	-> hyphae-pair <base64 24-byte random nonce>
//	<base64 XChaCha20-Poly1305(K, nonce, file key)>   (exactly 32 bytes)
//
// where, for sender S and recipient R with the X25519 keys above,
//
//	K = HKDF-SHA256(ikm  = X25519(S, R_pub) = X25519(R, S_pub),
//	                salt = S_pub ‖ R_pub,
//	                info = "hyphae/age-pair/v1")
//
// Base64 is standard without padding, as in age. The salt makes K
// directional (R→S uses another key) and binds it to both parties; an
// all-zero X25519 result (a low-order key) is refused, as in age. K is
// computed once per peer and direction and cached in the Identity, so
// encrypting and decrypting cost no scalar multiplication. The random
// 24-byte nonce keeps nonces from repeating under the long-lived K.
// Identity.DecryptFrom(from, …) opens hyphae-pair stanzas from that sender
// and also plain X25519 stanzas (the age tool, older messages); Decrypt
// opens only the latter. The age tool cannot open hyphae-pair files.
//
// Security compared with age's X25519 stanza: each message still has its
// own random file key, and neither scheme has forward secrecy (age's
// recipient key is static too). The difference is that K is a long-term
// secret of the pair: whoever holds S's or R's private key can unwrap all
// the traffic from S to R and from R to S — with age's stanza only R's key
// opens what was sent to R. In exchange a hyphae-pair stanza is
// sender-authenticated: only S or R can have made it, so a message re-signed
// by a third key with the same payload does not open. Plain X25519 stanzas
// remain accepted, and are authenticated only by the envelope signature.
//
// # Signing and verification
//
// Signatures are made and checked with
// github.com/oasisprotocol/curve25519-voi (also used by CometBFT). Ed25519
// signing is deterministic, so Sign makes the very bytes crypto/ed25519
// would, in less time; checks run under voi's
// VerifyOptionsStdLib rules, which accept exactly what crypto/ed25519.Verify
// accepts: cofactorless, S must be canonical, small-order keys are not
// refused. Each sender's public key is kept in voi's precomputed (expanded)
// form, a bounded cache like the one for keys, which makes a check cheaper
// than crypto/ed25519's; every message received costs one. A test and a fuzz target compare the verdicts with crypto/ed25519's,
// on genuine and altered signatures and on the cases where ed25519
// implementations are known to differ; another test checks that Sign's
// bytes are crypto/ed25519's.
//
// # Opening
//
// age parses every header and unwraps its file key (age.DecryptHeader,
// which checks the header MAC). A payload of one chunk — a plaintext of at
// most 64 KiB, so every bus message — is then opened here, per age's
// spec, straight into a buffer of the plaintext's size: age's own readers
// allocate a 64 KiB chunk buffer per file, which made opening three times
// slower and was 40 % of what a cross-agent round trip allocated. Longer
// payloads are left to age.DecryptReaderAt. Tests and a fuzz target check
// that the short path opens exactly what age opens and refuses what age
// refuses.
//
// # Swarm key
//
// GenerateSwarmKey and LoadSwarmKey handle the libp2p private-network
// pre-shared key file (the "swarm.key" format of go-libp2p's pnet package).
package identity
