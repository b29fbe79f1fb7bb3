package overlay

import (
	"slices"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/hyphae-run/hyphae/context/model"
)

// A peer down since before the cutoff (by its stored last_seen, so a row
// restored from an earlier run counts) leaves the table; one up, one down
// more recently and one never seen stay.
func TestForgetDropsPeersLongGone(t *testing.T) {
	now := time.Now()
	id := func() string {
		p, err := peer.IDFromPrivateKey(newKey(t))
		if err != nil {
			t.Fatal(err)
		}
		return p.String()
	}
	gone, recent, upOld, never := id(), id(), id(), id()
	tbl := newLiveTable()
	tbl.restore([]*model.Peer{
		{PeerID: gone, LastSeen: now.Add(-48 * time.Hour).Unix()},
		{PeerID: recent, LastSeen: now.Add(-time.Hour).Unix()},
		{PeerID: upOld, LastSeen: now.Add(-48 * time.Hour).Unix()},
		{PeerID: never},
	})
	up, _ := peer.Decode(upOld)
	tbl.apply(&presenceRecord{V: 1, ID: upOld, Seq: 1, peer: up}, now.Add(-48*time.Hour)) // up, its last record long ago
	got := tbl.forget(now.Add(-24 * time.Hour))
	if !slices.Equal(got, []string{gone}) {
		t.Fatalf("forgot %v, want only %s", got, gone)
	}
	if again := tbl.forget(now.Add(-24 * time.Hour)); len(again) != 0 {
		t.Fatalf("forgot %v a second time", again)
	}
	for _, p := range []string{recent, upOld, never} {
		pid, _ := peer.Decode(p)
		if _, ok := tbl.rows[pid]; !ok {
			t.Errorf("%s was forgotten", p)
		}
	}
}

// The default keeps a peer a day after it went down.
func TestForgetAfterDefault(t *testing.T) {
	c := Config{}.withDefaults()
	if c.ForgetAfter != DefaultForgetAfter || DefaultForgetAfter != 24*time.Hour {
		t.Fatalf("ForgetAfter default %v", c.ForgetAfter)
	}
}
