package transfer_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/hyphae-run/hyphae/files"
)

const resumeSize = 16*files.DefaultChunkSize + 4321

// A fetch cut at half way (the stream reset under it) resumes from its
// last verified chunk: what the second transfer serves and what the
// first had verified add up to the file, so no whole chunk moves twice.
func TestCutHalfWayResumes(t *testing.T) {
	l := newLab(t, allowAll)
	body := randomBytes(resumeSize, 5)
	e := l.produce(t, body)
	ctx, progress, verified := cutAt(e.Size / 2)
	if err := l.fetch(ctx, e, progress); !isCut(err) {
		t.Fatalf("cut fetch: %v", err)
	}
	if *verified < e.Size/2 || l.cliStore.Has(e.SHA256) {
		t.Fatalf("verified %d before the cut, blob visible %v", *verified, l.cliStore.Has(e.SHA256))
	}
	first := l.servedWhenIdle(t)
	if err := l.fetch(context.Background(), e, nil); err != nil {
		t.Fatal(err)
	}
	second := l.srv.Stats().BytesServed - first
	if second != e.Size-*verified {
		t.Errorf("resume served %d bytes, want %d (from the last verified chunk)", second, e.Size-*verified)
	}
	t.Logf("served %d + %d for %d bytes; %d were in flight at the cut", first, second, e.Size, first+second-e.Size)
	if got := l.cli.BytesReceived(); got < e.Size || got-e.Size > files.DefaultChunkSize {
		t.Errorf("the client read %d bytes for %d: %d twice, want at most one chunk (%d)",
			got, e.Size, got-e.Size, files.DefaultChunkSize)
	}
	if !bytes.Equal(l.received(t, e), body) {
		t.Fatal("received differs")
	}
}

// A restart of the fetching agent (its store opened again) resumes from
// the part on disk.
func TestReceiverRestartResumes(t *testing.T) {
	l := newLab(t, allowAll)
	body := randomBytes(resumeSize, 6)
	e := l.produce(t, body)
	ctx, progress, verified := cutAt(e.Size / 3)
	if err := l.fetch(ctx, e, progress); !isCut(err) {
		t.Fatalf("cut fetch: %v", err)
	}
	l.restartClient(t)
	first := l.servedWhenIdle(t)
	var start int64 = -1
	err := l.fetch(context.Background(), e, func(done, _ int64) {
		if start < 0 {
			start = done
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if start != *verified || l.srv.Stats().BytesServed-first != e.Size-*verified {
		t.Errorf("resumed at %d, served %d; want %d and %d", start, l.srv.Stats().BytesServed-first, *verified, e.Size-*verified)
	}
	if !bytes.Equal(l.received(t, e), body) {
		t.Fatal("received differs")
	}
}

// The sending agent shut down mid-transfer (its streams reset) and
// started again: the fetch resumes from its last verified chunk.
func TestSenderRestartResumes(t *testing.T) {
	l := newLab(t, allowAll)
	body := randomBytes(resumeSize, 7)
	e := l.produce(t, body)
	var verified int64
	stopped := make(chan error, 1)
	err := l.fetch(context.Background(), e, func(done, _ int64) {
		verified = done
		if done >= e.Size/2 && len(stopped) == 0 && cap(stopped) == 1 {
			stopped <- l.srv.Shutdown(context.Background())
		}
	})
	if err == nil || <-stopped != nil {
		t.Fatalf("fetch from a server shut down under it: %v", err)
	}
	l.serve(t, allowAll)
	if err := l.fetch(context.Background(), e, nil); err != nil {
		t.Fatal(err)
	}
	if s := l.srv.Stats(); s.BytesServed > e.Size-verified {
		t.Errorf("restarted server served %d, want at most %d", s.BytesServed, e.Size-verified)
	}
	if !bytes.Equal(l.received(t, e), body) {
		t.Fatal("received differs")
	}
}
