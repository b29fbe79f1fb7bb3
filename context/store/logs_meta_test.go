package store_test

import (
	"slices"
	"testing"

	"github.com/hyphae-run/hyphae/context/store"
)

// Lines written with their time and stream keep the plain list exactly as
// seed clients read it, and the meta at the same indexes: also after
// plain lines written without meta, and past the cap (the marker line is
// the agent's).
func TestAppendLogLinesKeepsPlainListAndMeta(t *testing.T) {
	s, srv := ctOpen(t)
	ctx := ctCtx(t)
	const ctxID, key = 2, "job:1:7"
	db := srv.Client(t, ctxID)
	if err := s.Logs.AppendLogs(ctx, ctxID, key, []string{"plain one", "plain two"}, 10); err != nil {
		t.Fatal(err)
	}
	lines := []store.LogLine{
		{Text: "out", TimeMS: 1700000000123, Stream: store.LogStdout},
		{Text: "err", TimeMS: 1700000000456, Stream: store.LogStderr},
	}
	if err := s.Logs.AppendLogLines(ctx, ctxID, key, lines, 10); err != nil {
		t.Fatal(err)
	}
	plain, err := db.LRange(ctx, store.LogKey(key), 0, -1).Result()
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"plain one", "plain two", "out", "err"}; !slices.Equal(plain, want) {
		t.Fatalf("plain log = %q, want %q", plain, want)
	}
	got, err := s.Logs.ReadLogLines(ctx, ctxID, key, 1)
	if err != nil {
		t.Fatal(err)
	}
	want := []store.LogLine{{Text: "plain two"}, lines[0], lines[1]}
	if !slices.Equal(got, want) {
		t.Fatalf("ReadLogLines(from 1) = %+v, want %+v", got, want)
	}

	// Past the cap of 5: one line fits, then the marker, from the agent.
	more := []store.LogLine{{Text: "a", TimeMS: 1, Stream: store.LogStderr}, {Text: "b", TimeMS: 2, Stream: store.LogStdout}}
	if err := s.Logs.AppendLogLines(ctx, ctxID, key, more, 5); err != nil {
		t.Fatal(err)
	}
	got, err = s.Logs.ReadLogLines(ctx, ctxID, key, 4)
	if err != nil {
		t.Fatal(err)
	}
	want = []store.LogLine{more[0], {Text: store.LogCapMarker, TimeMS: 2, Stream: store.LogAgent}}
	if !slices.Equal(got, want) {
		t.Fatalf("past the cap = %+v, want %+v", got, want)
	}
}
