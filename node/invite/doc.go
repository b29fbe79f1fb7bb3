// Package invite pairs two agents in two commands: `hyphae invite` on
// alice prints a one-time code, `hyphae join <code>` on bob dials alice,
// proves it holds the code, and comes back with a role in alice's context
// (docs/design.md, Trust). The models are Docker Swarm's join token, k3s's
// node token and Tailscale's auth keys.
//
// # The code
//
//	hyi1.<base64url, no padding, of: JSON payload ‖ CRC-32 (IEEE, big endian) of it>
//
// "hyi1" is the version: another prefix is refused as unsupported. The
// checksum makes a mistyped or truncated code say so rather than fail at
// the handshake. The payload (Code) holds alice's peer ID ("p"), her
// addresses ("a"), her host name ("n"), the invite's id ("i"), a 32-byte
// one-time secret ("s", base64url) and, when her network is private, her
// swarm key file ("k"). The code is a credential: whoever holds it may
// join once, until it expires.
//
// # The record
//
// Alice keeps the invite in her store (store.Invite: invite:<id>): the
// context, the role, whether bob becomes a runner of the context, the
// expiry, the state (open, used, revoked) and Key = SHA-256("hyphae-invite-key/1"
// ‖ secret), never the secret itself.
//
// # The join (stream protocol /hyphae/invite/1.0.0)
//
// Bob opens a stream to alice (libp2p authenticates both peer IDs) and
// writes one JSON line, Request:
//
//	{"id": <invite id>, "pubkey": <bob's peer ID>, "time": <unix seconds>,
//	 "mac": hex HMAC-SHA256(Key, M), "sig": base64 of bob's signature over M ‖ "\n" ‖ mac}
//	M = "hyphae-invite/1\n" ‖ id ‖ "\n" ‖ alice's peer ID ‖ "\n" ‖ bob's peer ID ‖ "\n" ‖ time
//
// Alice answers one JSON line, Answer, and closes. She refuses, changing
// nothing, a pubkey that is not the stream's peer, a time more than
// MaxSkew away from hers, an unknown id, a MAC that does not match (the
// secret is wrong: "forged"), a signature that does not verify; then she
// takes the invite in one step (a Lua script: open and unexpired becomes
// used) or refuses it "already used", "revoked" or "expired". Taken, it
// grants bob the role in the context by the path context.grant uses and,
// when asked, registers bob as a runner of the context, and answers ok with
// the context, the role, her actor id, peer ID and name. Bob then records
// alice under her name (store.SetPeerName), so that `job run --to alice`
// finds her.
package invite
