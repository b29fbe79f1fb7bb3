package store_test

import (
	"testing"

	"github.com/hyphae-run/hyphae/context/model"
)

// DeletePeer removes a peer's row (the overlay forgot it); deleting it
// again is no error.
func TestDeletePeer(t *testing.T) {
	s, _ := ctOpen(t)
	ctx := ctCtx(t)
	for _, id := range []string{"12D3KooWGone", "12D3KooWStays"} {
		if err := s.Registry.SavePeer(ctx, &model.Peer{PeerID: id, State: model.PeerDown, LastSeen: 1}); err != nil {
			t.Fatal(err)
		}
	}
	for range 2 {
		if err := s.Registry.DeletePeer(ctx, "12D3KooWGone"); err != nil {
			t.Fatalf("DeletePeer: %v", err)
		}
	}
	list, err := s.Registry.ListPeers(ctx)
	if err != nil || len(list) != 1 || list[0].PeerID != "12D3KooWStays" {
		t.Fatalf("after DeletePeer, ListPeers = %v, %v", list, err)
	}
}
