package model

// PeerState says whether a peer is reachable.
type PeerState string

// Peer states.
const (
	PeerUp   PeerState = "up"
	PeerDown PeerState = "down"
)

// Peer is a row of the live peer table kept in DB 0 as peer:<peer_id>,
// built from presence records and discovery.
type Peer struct {
	PeerID      string
	State       PeerState
	Addrs       []string
	Roles       []string
	ScriptTypes []string
	Capacity    int64
	Load        int64
	Version     string
	Uptime      int64  // seconds, as last announced
	FoundVia    string // mdns, dht, bootstrap, presence, store
	LastSeen    int64  // unix seconds of the last presence record
	Extra       Hash
}

// ToHash encodes p as a Redis hash.
func (p *Peer) ToHash() Hash {
	w := newWriter(p.Extra)
	w.str("peer_id", p.PeerID)
	w.str("state", string(p.State))
	w.strList("addrs", p.Addrs)
	w.strList("roles", p.Roles)
	w.strList("script_types", p.ScriptTypes)
	w.i64("capacity", p.Capacity)
	w.i64("load", p.Load)
	w.str("version", p.Version)
	w.i64("uptime", p.Uptime)
	w.str("found_via", p.FoundVia)
	w.i64("last_seen", p.LastSeen)
	return w.h
}

// PeerFromHash decodes a Peer.
func PeerFromHash(key string, h Hash) (*Peer, error) {
	r := newReader(key, h)
	p := &Peer{
		PeerID:      r.str("peer_id"),
		State:       PeerState(r.str("state")),
		Addrs:       r.strList("addrs"),
		Roles:       r.strList("roles"),
		ScriptTypes: r.strList("script_types"),
		Capacity:    r.i64("capacity"),
		Load:        r.i64("load"),
		Version:     r.str("version"),
		Uptime:      r.i64("uptime"),
		FoundVia:    r.str("found_via"),
		LastSeen:    r.i64("last_seen"),
	}
	p.Extra = r.extra()
	return p, r.err
}
