package bridge

import (
	"context"
	"testing"
	"time"
)

// remote_done's hand-over of a job whose result went out early waits until
// the early entry is ready and then takes it, once; an entry whose result
// did not go out (no id, memory full) sends remote_done the usual way; one
// entry per job at a time; a dropped entry is gone.
func TestEarlyResultsTakeWaitsForTheEntry(t *testing.T) {
	r := newEarlyResults()
	e := r.start(1, "job:3:4")
	if e == nil || r.start(1, "job:3:4") != nil {
		t.Fatal("want one entry per job")
	}
	got := make(chan *early, 1)
	go func() { got <- r.take(context.Background(), 1, "job:3:4") }()
	select {
	case <-got:
		t.Fatal("take answered before the entry was ready")
	case <-time.After(50 * time.Millisecond):
	}
	e.ok, e.msgKey = true, "message:3:9"
	close(e.ready)
	if x := <-got; x != e {
		t.Fatalf("take = %+v, want the entry", x)
	}
	if r.take(context.Background(), 1, "job:3:4") != nil {
		t.Fatal("an entry was taken twice")
	}

	failed := r.start(1, "job:3:5")
	close(failed.ready) // ok stays false: the result did not go out
	if r.take(context.Background(), 1, "job:3:5") != nil {
		t.Fatal("an entry whose result did not go out was taken")
	}

	r.start(2, "job:3:6")
	r.drop(2, "job:3:6")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	if r.take(ctx, 2, "job:3:6") != nil || r.start(2, "job:3:6") == nil {
		t.Fatal("a dropped entry is still there")
	}
}
