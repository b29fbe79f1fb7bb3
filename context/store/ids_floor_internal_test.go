package store

import "testing"

// A block whose INCRBY was in flight while a caller chose an id inside it
// (put later, as the spare or the block in use) never hands that id out.
func TestFloorSkipsBlocksReservedBeforeTheClaim(t *testing.T) {
	b := newIDBlocks()
	k := idKind{1, "job"}
	b.put(k, idBlock)   // 1..32, 1 handed out
	b.raiseFloor(k, 40) // a caller chose 40 while 33..64 was being reserved
	b.putSpare(k, 64, true)
	if got, _ := b.takeReserved(1, "job"); len(got) != 1 || got[0] != 41 {
		t.Fatalf("takeReserved = %v, want [41]", got)
	}
	if id, ok := b.putAbove(idKind{1, "message"}, idBlock); !ok || id != 1 {
		t.Fatalf("putAbove without a floor = %d %v", id, ok)
	}
	b.raiseFloor(k, 100)
	if _, ok := b.putAbove(k, 96); ok {
		t.Fatal("putAbove handed out an id from a block under the floor")
	}
	if id, ok := b.putAbove(k, 128); !ok || id != 101 {
		t.Fatalf("putAbove = %d %v, want 101", id, ok)
	}
}
