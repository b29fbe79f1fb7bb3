package store

import (
	"context"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/hyphae-run/hyphae/testkit/testredis"
)

// The next block is asked for once, when the block in use gets low, and
// ids go on from it without a gap when the block in use runs out.
func TestIDBlocksReserveAheadOnce(t *testing.T) {
	b := newIDBlocks()
	k := idKind{1, "job"}
	if _, ok, _ := b.take(k); ok {
		t.Fatal("an id before any block was reserved")
	}
	next := b.put(k, idBlock) // the first block: 1..32
	refills := 0
	for next < idBlock {
		id, ok, refill := b.take(k)
		if !ok || id != next+1 {
			t.Fatalf("take = %d, %v; want %d", id, ok, next+1)
		}
		next = id
		if refill {
			refills++
			if left := idBlock - id; left != idLow {
				t.Fatalf("reserved ahead with %d ids left, want %d", left, idLow)
			}
		}
	}
	if refills != 1 {
		t.Fatalf("asked for the next block %d times, want once", refills)
	}
	if _, ok, _ := b.take(k); ok {
		t.Fatal("an id past the block while the next one is still being reserved")
	}
	b.putSpare(k, 3*idBlock, true) // another client took 33..64 meanwhile
	b.wg.Done()                    // as reserveAhead does
	id, ok, refill := b.take(k)
	if !ok || id != 2*idBlock+1 || refill {
		t.Fatalf("take = %d, %v, %v; want %d from the block reserved ahead", id, ok, refill, 2*idBlock+1)
	}
	b.stop()
	b.wait()
}

// A failed reservation is asked for again by a later take.
func TestIDBlocksRetryAFailedReservation(t *testing.T) {
	b := newIDBlocks()
	k := idKind{2, "message"}
	b.put(k, idBlock)
	asked := 0
	for {
		_, ok, refill := b.take(k)
		if !ok {
			break
		}
		if refill {
			asked++
			b.putSpare(k, 0, false) // Redis was away
			b.wg.Done()
		}
	}
	if asked != idLow+1 {
		t.Fatalf("asked %d times for the next block after failures, want %d (every take at or under the low mark)", asked, idLow+1)
	}
	b.stop()
	b.wait()
}

// Close ends a reservation that waits for the answer of a Redis that
// hangs, and waits for it: nothing is left running, and closing takes no
// longer than it would without the reservation.
func TestCloseEndsReservationsUnderWay(t *testing.T) {
	srv := testredis.Start(t)
	s, err := Open(context.Background(), srv.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	if _, err := s.Jobs.NextIDs(ctx, 1, "job"); err != nil {
		t.Fatal(err)
	}
	srv.Freeze(t)
	for range idBlock - idLow - 1 {
		if _, err := s.Jobs.NextIDs(ctx, 1, "job"); err != nil {
			t.Fatal(err)
		}
	}
	s.ids.mu.Lock()
	filling := s.ids.m[idKind{1, "job"}].filling
	s.ids.mu.Unlock()
	if !filling {
		t.Fatal("no reservation under way at the low mark")
	}
	waitForGoroutine(t, "store.(*core).reserveAhead", "net.(*conn).Read") // its INCRBY sent, waiting for the answer
	closed := make(chan error, 1)
	go func() { closed <- s.Close() }()
	select {
	case <-closed:
	case <-time.After(refillTimeout / 2):
		t.Fatal("Close waited for the reservation's own timeout instead of ending it")
	}
}

// waitForGoroutine polls the goroutine dump until one goroutine's stack
// holds every one of frames.
func waitForGoroutine(t *testing.T, frames ...string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	buf := make([]byte, 1<<20)
	for {
		for _, g := range strings.Split(string(buf[:runtime.Stack(buf, true)]), "\n\n") {
			if containsAll(g, frames) {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no goroutine in %q", frames)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func containsAll(s string, subs []string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}

// takeReserved hands out ids only when every kind has one (taking none
// otherwise) and never asks for the next block, even past the low mark:
// refillLow does, once, when the caller has used the ids.
func TestIDBlocksTakeReservedAllOrNone(t *testing.T) {
	b := newIDBlocks()
	job, msg := idKind{3, "job"}, idKind{3, "message"}
	if _, ok := b.takeReserved(3, "message", "job"); ok {
		t.Fatal("ids before any block was reserved")
	}
	first := b.put(job, idBlock)
	if _, ok := b.takeReserved(3, "message", "job"); ok {
		t.Fatal("ids although no message block is reserved")
	}
	if id, _, _ := b.take(job); id != first+1 {
		t.Fatalf("a refused takeReserved took job id %d", first+1)
	}
	b.put(msg, idBlock)
	for n := 2; n < idBlock; n++ {
		ids, ok := b.takeReserved(3, "message", "job")
		if !ok || ids[1] != uint64(n+1) {
			t.Fatalf("takeReserved = %v, %v; want job id %d", ids, ok, n+1)
		}
	}
	b.mu.Lock()
	filling := b.m[job].filling || b.m[msg].filling
	b.mu.Unlock()
	if filling {
		t.Fatal("takeReserved asked for the next block")
	}
	if !b.refillLow(job) || b.refillLow(job) {
		t.Fatal("refillLow did not ask for the next block exactly once")
	}
	b.putSpare(job, 2*idBlock, false)
	b.wg.Done()
	b.stop()
	b.wait()
}
