package bridge

import (
	"slices"
	"strings"
	"testing"

	"github.com/libp2p/go-libp2p/core/peer"
)

// An answer to a log request reaches the call that asked only from the
// peer asked, and only once.
func TestLogWaitersMatchAnswerToAsker(t *testing.T) {
	w := newLogWaiters()
	asked, other := peer.ID("asked"), peer.ID("other")
	ref, lw, done := w.add(3, asked)
	defer done()
	if !strings.HasPrefix(ref, "3/logs:") {
		t.Fatalf("ref %q, want one of context 3", ref)
	}
	if w.answer(other, &payload{AckOf: ref}) {
		t.Fatal("an answer from a peer not asked was taken")
	}
	if !w.answer(asked, &payload{AckOf: ref, Next: 7}) {
		t.Fatal("the answer from the peer asked was not taken")
	}
	if p := <-lw.ch; p.Next != 7 {
		t.Fatalf("got %+v", p)
	}
	if w.answer(asked, &payload{AckOf: ref}) {
		t.Fatal("a second answer to the same request was taken")
	}
	ref2, _, done2 := w.add(3, asked)
	done2()
	if ref2 == ref || w.answer(asked, &payload{AckOf: ref2}) {
		t.Fatalf("refs %q, %q: each request needs its own, and a finished request takes no answer", ref, ref2)
	}
}

// An answer holds at most n lines and about size bytes, but always one.
func TestBoundLines(t *testing.T) {
	lines := []string{"aaaa", "bbbb", "cccc", "dddd"}
	for _, c := range []struct {
		n, size int
		want    []string
	}{
		{10, 1000, lines},
		{2, 1000, lines[:2]},
		{10, 25, lines[:2]}, // 12 bytes a line, counted
		{10, 1, lines[:1]},  // one line even when it alone is too big
	} {
		if got := boundLines(lines, c.n, c.size); !slices.Equal(got, c.want) {
			t.Errorf("boundLines(n=%d, size=%d) = %q, want %q", c.n, c.size, got, c.want)
		}
	}
	if got := boundLines(nil, 10, 10); len(got) != 0 {
		t.Errorf("boundLines(nil) = %q", got)
	}
}
