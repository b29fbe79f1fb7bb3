package overlay

import (
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"
)

// A peer's first presence record can come over a connection that a dial
// made before the dial returns (it waits for identify). The peer was found
// by whatever started that dial, not by presence; a peer nobody dialled,
// or whose dial failed, was found by presence.
func TestFoundViaCreditsTheDialUnderWay(t *testing.T) {
	tbl := newLiveTable()
	newPeer := func() peer.ID {
		id, err := peer.IDFromPrivateKey(newKey(t))
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	record := func(p peer.ID, seq uint64) string {
		row, _ := tbl.apply(&presenceRecord{V: 1, ID: p.String(), Seq: seq, peer: p}, time.Now())
		return row.FoundVia
	}

	dialled := newPeer()
	tbl.dialing(dialled, FoundMDNS)
	if via := record(dialled, 1); via != FoundMDNS {
		t.Errorf("record during an mdns dial: found via %q, want mdns", via)
	}
	tbl.dialed(dialled, FoundMDNS, true)
	if via := record(dialled, 2); via != FoundMDNS {
		t.Errorf("after the dial: found via %q, want mdns", via)
	}

	failed := newPeer()
	tbl.dialing(failed, FoundBootstrap)
	tbl.dialed(failed, FoundBootstrap, false)
	if via := record(failed, 1); via != FoundPresence {
		t.Errorf("record after a failed dial: found via %q, want presence", via)
	}

	connected := newPeer()
	tbl.dialing(connected, FoundDHT)
	tbl.dialed(connected, FoundDHT, true)
	if via := record(connected, 1); via != FoundDHT {
		t.Errorf("record after a dial: found via %q, want dht", via)
	}
}
