package executor_test

import (
	"context"
	"slices"
	"testing"

	"github.com/hyphae-run/hyphae/context/store"
)

// A job's log says which line came on stderr, which on stdout and which
// from the agent, with the time of each, beside the plain lines (which
// stay as they were), also past the head of a capped log.
func TestLogLinesKeepTheirStream(t *testing.T) {
	h := newHarness(t)
	cfg := h.config()
	cfg.LogLines = 6 // the head is 3 lines; the rest are held and written at the end
	h.start(t, cfg)
	c := h.client(t, 1)
	key := submit(t, c, 1, 1, "sh", "echo out1; echo err1 >&2; sleep 0.1; echo out2; echo err2 >&2; echo out3; exit 3")
	waitEnd(t, c, key)
	ctx := context.Background()
	plain := c.LRange(ctx, store.LogKey(key), 0, -1).Val()
	metas := c.LRange(ctx, store.LogMetaKey(key), 0, -1).Val()
	if len(metas) != len(plain) {
		t.Fatalf("%d meta entries for %d lines: %q", len(metas), len(plain), plain)
	}
	got := map[string]string{}
	for _, l := range store.JoinLogMeta(plain, metas) {
		if l.TimeMS <= 0 {
			t.Errorf("line %q has no time", l.Text)
		}
		got[l.Text] = l.Stream
	}
	for text, want := range map[string]string{"out1": store.LogStdout, "err1": store.LogStderr, "err2": store.LogStderr, "out3": store.LogStdout} {
		if got[text] != want {
			t.Errorf("line %q: stream %q, want %q (log %q)", text, got[text], want, plain)
		}
	}
	if !slices.ContainsFunc(store.JoinLogMeta(plain, metas), func(l store.LogLine) bool {
		return l.Stream == store.LogAgent
	}) {
		t.Errorf("no agent line (the exit reason) among %q", plain)
	}
}
