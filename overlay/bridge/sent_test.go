package bridge

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// A result that overtakes its job's write waits for the write, then finds
// where the job went.
func TestSentJobsLookupWaitsForTheWrite(t *testing.T) {
	s := newSentJobs()
	e := s.add(1, "job:1:7", "message:1:9", "peerA")
	got := make(chan string, 1)
	go func() {
		runner, msgKey, ok := s.lookup(context.Background(), 1, "job:1:7")
		got <- fmt.Sprint(runner, " ", msgKey, " ", ok)
	}()
	select {
	case g := <-got:
		t.Fatalf("lookup answered before the write ended: %s", g)
	case <-time.After(50 * time.Millisecond): // the lookup is still waiting
	}
	s.written(e, true)
	if g := <-got; g != "peerA message:1:9 true" {
		t.Fatalf("lookup = %q", g)
	}
	s.moved(1, "job:1:7", "peerB")
	if runner, _, _ := s.lookup(context.Background(), 1, "job:1:7"); runner != "peerB" {
		t.Fatalf("after moved, runner = %q", runner)
	}
	s.forget(1, "job:1:7")
	if _, _, ok := s.lookup(context.Background(), 1, "job:1:7"); ok {
		t.Fatal("a forgotten job is still remembered")
	}
}

// A failed write leaves nothing in memory: the result then goes to Redis,
// which has no such job.
func TestSentJobsFailedWriteIsForgotten(t *testing.T) {
	s := newSentJobs()
	e := s.add(2, "job:1:1", "message:1:1", "peerA")
	s.written(e, false)
	if _, _, ok := s.lookup(context.Background(), 2, "job:1:1"); ok {
		t.Fatal("lookup found a job whose write failed")
	}
	if len(s.jobs)+len(s.msgs) != 0 {
		t.Fatalf("entries left: %d jobs, %d messages", len(s.jobs), len(s.msgs))
	}
}

// A message without a job entry is remembered only while it is written;
// an answer waits for that write and no longer.
func TestSentJobsMessageOnlyWhileWritten(t *testing.T) {
	s := newSentJobs()
	w := s.writing(3, "message:1:5")
	done := make(chan struct{})
	go func() { s.awaitMessage(context.Background(), 3, "message:1:5"); close(done) }()
	select {
	case <-done:
		t.Fatal("awaitMessage returned before the write ended")
	case <-time.After(50 * time.Millisecond):
	}
	s.written(w, true)
	<-done
	if len(s.msgs) != 0 {
		t.Fatalf("%d message entries left after the write", len(s.msgs))
	}
	s.awaitMessage(context.Background(), 3, "message:1:5") // unknown: returns at once
}

// When full of fresh entries, no more are made (callers then write before
// sending); stale ones make room at the next scan.
func TestSentJobsBounded(t *testing.T) {
	s := newSentJobs()
	for i := range maxSent {
		if s.add(1, fmt.Sprintf("job:1:%d", i), fmt.Sprintf("message:1:%d", i), "p") == nil {
			t.Fatalf("entry %d refused below the bound", i)
		}
	}
	if s.writing(1, "message:1:x") != nil {
		t.Fatal("an entry was made beyond the bound")
	}
	for _, e := range s.msgs {
		e.at = time.Now().Add(-2 * staleSent)
		break
	}
	s.pruned = s.pruned.Add(-2 * time.Second) // the next scan is due (one a second)
	if s.writing(1, "message:1:y") == nil {
		t.Fatal("a stale entry did not make room")
	}
}
