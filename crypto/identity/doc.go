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
// Payloads are encrypted with age (https://age-encryption.org) using a
// standard X25519 recipient derived from the actor key, as described in
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
// # Swarm key
//
// GenerateSwarmKey and LoadSwarmKey handle the libp2p private-network
// pre-shared key file (the "swarm.key" format of go-libp2p's pnet package).
package identity
