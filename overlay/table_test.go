package overlay

import (
	"crypto/rand"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/peer"
)

func testPeerID(t *testing.T) peer.ID {
	t.Helper()
	_, pub, err := crypto.GenerateEd25519Key(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	id, err := peer.IDFromPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// A peer's first presence record can come over a connection that a dial
// made before the dial returns (it waits for identify). The peer was found
// by whatever started that dial, not by presence; a peer nobody dialled,
// or whose dial failed, was found by presence.
func TestFoundViaCreditsTheDialUnderWay(t *testing.T) {
	tbl := newLiveTable()
	now := time.Now()
	record := func(p peer.ID) string {
		row, _ := tbl.apply(&presenceRecord{V: 1, ID: p.String(), Seq: 1, peer: p}, now)
		return row.FoundVia
	}

	dialled := testPeerID(t)
	tbl.dialing(dialled, FoundMDNS)
	if via := record(dialled); via != FoundMDNS {
		t.Errorf("record during an mdns dial: found via %q, want mdns", via)
	}
	tbl.dialed(dialled, FoundMDNS, true)
	if row, _ := tbl.apply(&presenceRecord{V: 1, ID: dialled.String(), Seq: 2, peer: dialled}, now); row.FoundVia != FoundMDNS {
		t.Errorf("after the dial: found via %q, want mdns", row.FoundVia)
	}

	failed := testPeerID(t)
	tbl.dialing(failed, FoundBootstrap)
	tbl.dialed(failed, FoundBootstrap, false)
	if via := record(failed); via != FoundPresence {
		t.Errorf("record after a failed dial: found via %q, want presence", via)
	}

	connected := testPeerID(t)
	tbl.dialing(connected, FoundDHT)
	tbl.dialed(connected, FoundDHT, true)
	if via := record(connected); via != FoundDHT {
		t.Errorf("record after a dial: found via %q, want dht", via)
	}
}
