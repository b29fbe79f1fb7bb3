// Package overlay puts a Hyphae agent on the libp2p overlay: a host whose
// identity is the actor key (peer ID = actor public key), a gossipsub bus
// with strict signing, automatic discovery (mDNS, bootstrap peers, a
// Kademlia DHT under the /hyphae protocol prefix, peers remembered in the
// peer table), signed presence records and NAT traversal (port mapping,
// hole punching, AutoRelay, relay service).
//
// # Topics
//
//	hyphae/1/presence          every agent, every PresenceInterval
//	hyphae/1/inbox/<peerID>    point-to-point frames for <peerID>; only it subscribes
//	hyphae/1/relay             point-to-point frames that could not go direct;
//	                           every agent subscribes and forwards
//
// A subscription filter refuses any other topic, so a peer cannot make an
// agent track arbitrary topics.
//
// # Frame format (inbox and relay topics, version 1)
//
//	byte 0        version (1)
//	byte 1        n = length of the recipient peer ID in binary form
//	bytes 2..2+n  recipient peer ID (binary multihash)
//	next 8 bytes  random nonce, so that a retransmission of the same payload
//	              is a new pubsub message (message IDs are content hashes)
//	rest          payload, opaque to the overlay (the bridge's signed envelope)
//
// The receiver accepts frames addressed to it from both topics. On the
// inbox topic a malformed frame is rejected (the sender is penalised); on
// the relay topic it is ignored, and frames for other agents are accepted so
// that they propagate.
//
// # Presence wire format (version 1)
//
// A JSON object, at most MaxPresenceSize bytes, published with the
// gossipsub signature of the announcing agent:
//
//	{"v":1,"id":"12D3KooW…","addrs":["/ip4/…/tcp/4001"],"roles":["runner"],
//	 "types":["sh"],"cap":4,"load":1,"ver":"0.1.0","up":42,"seq":1718000000123}
//
// seq grows strictly (it starts at the wall clock in milliseconds, so it
// keeps growing across restarts); receivers ignore records whose seq is not
// newer than the last one they saw. The validator rejects records that do
// not parse, are oversized, have an unknown field type, or whose "id" is not
// the pubsub author; a record with another "v" is ignored.
//
// # Discovery
//
// mDNS (service MDNSService, "_hyphae._udp"; with a swarm key
// "_hyphae-<8 hex of a hash of the key>._udp", so fleets on one LAN skip
// each other; a found peer that cannot be dialled yet is retried for about
// 30 s, since mDNS reports it only once), bootstrap peers re-dialled
// with backoff while down (and protected from the connection manager), a
// Kademlia DHT under DHTProtocolPrefix with rendezvous records at
// RendezvousNS, and the addresses of peers remembered in the PeerTable,
// redialled at start-up. model.Peer.FoundVia records how this run first
// found each peer: mdns, dht, bootstrap, store, or presence (heard of
// before any of those connected us, e.g. it dialled us or was relayed).
//
// # Message IDs
//
// A pubsub message ID is the SHA-256 of the message data, so the same bytes
// arriving over several paths are processed once.
package overlay
