// Package overlay puts a Hyphae agent on the libp2p overlay: a host whose
// identity is the actor key (peer ID = actor public key), a gossipsub bus
// with strict signing and direct streams between connected agents,
// automatic discovery (mDNS, bootstrap peers, a
// Kademlia DHT under the /hyphae protocol prefix, peers remembered in the
// peer table), signed presence records and NAT traversal (port mapping,
// hole punching, AutoRelay, relay service).
//
// # Topics
//
//	hyphae/1/presence          every agent, every PresenceInterval
//	hyphae/1/inbox/<peerID>    point-to-point frames for <peerID>; only it subscribes
//	hyphae/1/relay             point-to-point frames that could not reach the inbox;
//	                           every agent subscribes and forwards
//
// A subscription filter refuses any other topic, so a peer cannot make an
// agent track arbitrary topics.
//
// # Direct streams
//
// A point-to-point frame for a peer this agent holds an open (not relay-
// limited) connection to goes on a libp2p stream of DirectProtocol
// (/hyphae/bus/1.0.0) instead of gossipsub: one stream per peer and
// direction, kept open, written only by its opener. Each frame on it is a
// uvarint length (at most MaxMessageSize) followed by the same frame as on
// the topics. The stream's secure channel authenticates the remote peer
// ID, which takes the place of the pubsub author; the receiver judges each
// frame with the same InboxValidator, in the stream's goroutine, and hands
// accepted ones to Inbox with Topic DirectTopic. Frames held against the
// sender (rejected, malformed, for another agent) are counted; five within
// a minute end its streams and refuse new ones for a minute, so that what
// it sends goes through gossipsub and meets its peer scoring. A malformed
// length ends the stream at once.
//
// # Across NATs
//
// An agent with no public address that is given a relay or bootstrap peer
// at a public one takes itself for private (Config.Reachability "auto")
// and reserves a slot at its relays (the bootstrap peers by default) at
// once. An agent elsewhere reaches it through the relay; hole punching
// (DCUtR) then replaces the relayed connection with a direct one, which
// takes the traffic over (the relayed one is closed; ConnKind tells which
// an agent holds). The DHT is built after the host listens, so the first
// dial to a bootstrap peer leaves from the listen port and that peer
// observes the public address punching needs. Private addresses not on
// this machine's networks are not dialled (dialGater).
//
// Gossipsub stays the way between agents that are not connected (the relay
// topic) and the fallback: a stream that cannot be opened (the peer does
// not speak DirectProtocol, or Config.NoDirect is set there) or written
// holds the peer back for a minute, during which its frames are published.
// Why: a request/response over a kept stream costs a tenth of one over two
// inbox topics here (gossipsub signs and checks every message, and routes
// it through its validation pipeline and queues), and the bus's own
// envelope is signed anyway. Like gossipsub, direct streams promise no
// delivery: a frame written just before the peer refuses or resets the
// stream is lost, and the bridge's outbox sends it again.
//
// # Frame format (inbox and relay topics, direct streams; version 1)
//
//	byte 0        version (1)
//	byte 1        n = length of the recipient peer ID in binary form
//	bytes 2..2+n  recipient peer ID (binary multihash)
//	next 8 bytes  random nonce, so that a retransmission of the same payload
//	              is a new pubsub message (message IDs are content hashes)
//	rest          payload, opaque to the overlay (the bridge's signed envelope)
//
// The receiver accepts frames addressed to it from both topics and from
// direct streams. On the
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
// # Conduct
//
// Each agent counts, per peer, the messages it refused lately: frames the
// inbox validator rejected and messages the bridge refused after reading
// them (Penalize: a result for a job not sent to that peer, a job it may
// not submit, a payload that does not decode). The count halves every
// five minutes. It lowers the peer's gossipsub score (the app-specific
// part), and past twenty the peer's frames to this agent, on every path,
// pass a token bucket (twenty a second) before any check; the rest are
// dropped unjudged and counted (FrameStats.Limited). See conduct.go.
//
// # Message IDs
//
// A pubsub message ID is the SHA-256 of the message data, so the same bytes
// arriving over several paths are processed once.
package overlay
