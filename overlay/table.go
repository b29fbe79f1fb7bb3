package overlay

import (
	"cmp"
	"slices"
	"sync"
	"time"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/libp2p/go-libp2p/core/peer"
)

// How a peer was first found in this run (model.Peer.FoundVia).
const (
	FoundMDNS      = "mdns"
	FoundDHT       = "dht"
	FoundBootstrap = "bootstrap"
	FoundPresence  = "presence"
	FoundStore     = "store"
)

// liveTable is the in-memory peer table; the PeerTable is its durable copy.
type liveTable struct {
	mu    sync.Mutex
	rows  map[peer.ID]*tableEntry // guarded by mu
	found map[peer.ID]string      // guarded by mu
	dials map[peer.ID]string      // how peers being dialled were found, until the dial ends; guarded by mu
	hooks []func(*model.Peer)     // guarded by mu
}

type tableEntry struct {
	row  model.Peer
	seen time.Time // local clock of the last record; zero before one
	down time.Time // local clock when sweep marked it down; zero while up or restored
	seq  uint64
}

func newLiveTable() *liveTable {
	return &liveTable{rows: make(map[peer.ID]*tableEntry), found: make(map[peer.ID]string),
		dials: make(map[peer.ID]string)}
}

// dialing records that p, found via via, is being dialled: a presence
// record that comes over that connection before the dial returns (the
// dial waits for identify) is credited to via, not to presence.
func (t *liveTable) dialing(p peer.ID, via string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if _, ok := t.dials[p]; !ok {
		t.dials[p] = via
	}
}

// dialed ends a dial of p that dialing recorded; when it connected, p was
// found via via unless it was known already.
func (t *liveTable) dialed(p peer.ID, via string, connected bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.dials[p] == via {
		delete(t.dials, p)
	}
	if _, ok := t.found[p]; !ok && connected {
		t.found[p] = via
	}
}

// lastSeq is the sequence number of p's last accepted record.
func (t *liveTable) lastSeq(p peer.ID) uint64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	if e, ok := t.rows[p]; ok {
		return e.seq
	}
	return 0
}

// up reports whether p is up.
func (t *liveTable) up(p peer.ID) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	e, ok := t.rows[p]
	return ok && e.row.State == model.PeerUp
}

// downSince is when sweep marked p down in this run; zero when p is up,
// unknown, or down only because a previous run's table was restored.
func (t *liveTable) downSince(p peer.ID) time.Time {
	t.mu.Lock()
	defer t.mu.Unlock()
	if e, ok := t.rows[p]; ok && e.row.State == model.PeerDown {
		return e.down
	}
	return time.Time{}
}

// restore loads rows from a previous run, all down until heard from.
func (t *liveTable) restore(rows []*model.Peer) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, r := range rows {
		id, err := peer.Decode(r.PeerID)
		if err != nil {
			continue
		}
		row := *r
		row.State = model.PeerDown
		t.rows[id] = &tableEntry{row: row}
	}
}

// apply folds record r in; it returns the new row and whether anything but
// LastSeen changed.
func (t *liveTable) apply(r *presenceRecord, now time.Time) (model.Peer, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	e, ok := t.rows[r.peer]
	if !ok {
		e = &tableEntry{row: model.Peer{PeerID: r.ID}}
		t.rows[r.peer] = e
	}
	if r.Seq <= e.seq {
		return e.row, false
	}
	old := e.row
	via, ok := t.found[r.peer]
	if !ok {
		via = cmp.Or(t.dials[r.peer], FoundPresence)
		t.found[r.peer] = via
	}
	e.row = model.Peer{
		PeerID: r.ID, State: model.PeerUp, Addrs: r.Addrs, Roles: r.Roles,
		ScriptTypes: r.Types, Capacity: r.Cap, Load: r.Load, Version: r.Ver,
		Uptime: r.Up, FoundVia: via, LastSeen: now.Unix(), Extra: r.withHost(old.Extra),
	}
	e.seen, e.seq, e.down = now, r.Seq, time.Time{}
	return e.row, !sameInfo(old, e.row)
}

// sameInfo compares what routing cares about.
func sameInfo(a, b model.Peer) bool {
	return a.State == b.State && a.Capacity == b.Capacity && a.Load == b.Load &&
		a.Version == b.Version && a.FoundVia == b.FoundVia &&
		slices.Equal(a.Addrs, b.Addrs) && slices.Equal(a.Roles, b.Roles) &&
		slices.Equal(a.ScriptTypes, b.ScriptTypes)
}

// sweep marks down the up peers not heard from since cutoff.
func (t *liveTable) sweep(cutoff time.Time) []model.Peer {
	t.mu.Lock()
	defer t.mu.Unlock()
	var down []model.Peer
	for _, e := range t.rows {
		if e.row.State == model.PeerUp && e.seen.Before(cutoff) {
			e.row.State = model.PeerDown
			e.down = time.Now()
			down = append(down, e.row)
		}
	}
	return down
}

// addHook registers f for peer changes.
func (t *liveTable) addHook(f func(*model.Peer)) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.hooks = append(t.hooks, f)
}

// notify calls every hook with its own copy of row.
func (t *liveTable) notify(row model.Peer) {
	t.mu.Lock()
	hooks := slices.Clone(t.hooks)
	t.mu.Unlock()
	for _, f := range hooks {
		p := row
		p.Addrs, p.Roles, p.ScriptTypes = slices.Clone(row.Addrs), slices.Clone(row.Roles), slices.Clone(row.ScriptTypes)
		f(&p)
	}
}
