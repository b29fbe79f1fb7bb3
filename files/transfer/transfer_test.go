package transfer_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/hyphae-run/hyphae/files"
	"github.com/hyphae-run/hyphae/files/transfer"
	"github.com/libp2p/go-libp2p/core/peer"
)

func TestFetchVerified(t *testing.T) {
	l := newLab(t, allowAll)
	body := randomBytes(5*files.DefaultChunkSize+123, 1)
	e := l.produce(t, body)
	var last int64
	if err := l.fetch(context.Background(), e, func(done, total int64) { last = done }); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(l.received(t, e), body) || last != e.Size {
		t.Fatalf("received differs or progress ended at %d of %d", last, e.Size)
	}
	if s := l.srv.Stats(); s.Transfers != 1 || s.BytesServed != e.Size {
		t.Errorf("stats %+v", s)
	}
	// Again: in the store already, nothing moves.
	if err := l.fetch(context.Background(), e, nil); err != nil || l.srv.Stats().Transfers != 1 {
		t.Fatalf("second fetch: %v, %+v", err, l.srv.Stats())
	}
}

func TestFetchEmptyFile(t *testing.T) {
	l := newLab(t, allowAll)
	e := l.produce(t, nil)
	if err := l.fetch(context.Background(), e, nil); err != nil || !l.cliStore.Has(e.SHA256) {
		t.Fatalf("empty file: %v", err)
	}
}

func TestCorruptChunkRefused(t *testing.T) {
	l := newLab(t, allowAll)
	body := randomBytes(6*files.DefaultChunkSize, 2)
	e := l.produce(t, body)
	path := l.srvStore.Path(e.SHA256)
	flip := func() {
		_ = os.Chmod(path, 0o644)
		f, err := os.OpenFile(path, os.O_RDWR, 0)
		if err != nil {
			t.Fatal(err)
		}
		b := []byte{0}
		_, _ = f.ReadAt(b, 3*files.DefaultChunkSize+17)
		b[0] ^= 0xff
		_, _ = f.WriteAt(b, 3*files.DefaultChunkSize+17)
		_ = f.Close()
	}
	flip()
	var last int64
	err := l.fetch(context.Background(), e, func(done, _ int64) { last = done })
	if !errors.Is(err, files.ErrCorrupt) || !strings.Contains(err.Error(), "chunk 3") {
		t.Fatalf("err %v, want ErrCorrupt at chunk 3", err)
	}
	if l.cliStore.Has(e.SHA256) || last != 3*files.DefaultChunkSize {
		t.Fatalf("blob visible %v, verified %d; want 3 chunks kept, nothing visible", l.cliStore.Has(e.SHA256), last)
	}
	flip() // the sender's disk is repaired: the fetch resumes at chunk 3
	before := l.servedWhenIdle(t)
	if err := l.fetch(context.Background(), e, nil); err != nil {
		t.Fatal(err)
	}
	if served := l.srv.Stats().BytesServed - before; served != e.Size-3*files.DefaultChunkSize {
		t.Errorf("resume served %d bytes, want %d", served, e.Size-3*files.DefaultChunkSize)
	}
	if !bytes.Equal(l.received(t, e), body) {
		t.Fatal("received differs")
	}
}

func TestChunkListNotMatchingEntryRefused(t *testing.T) {
	l := newLab(t, allowAll)
	e := l.produce(t, randomBytes(2*files.DefaultChunkSize, 3))
	e.ChunkRoot = strings.Repeat("0", 64)
	if err := l.fetch(context.Background(), e, nil); !errors.Is(err, files.ErrCorrupt) {
		t.Fatalf("err %v, want ErrCorrupt", err)
	}
	if w := l.written(t); len(w) != 0 {
		t.Fatalf("written: %v", w)
	}
}

func TestUnauthorizedGetsNothing(t *testing.T) {
	var asked []string
	auth := transfer.AuthorizerFunc(func(_ context.Context, p peer.ID, sha, job string) error {
		asked = append(asked, fmt.Sprintf("%s %s %s", p, sha, job))
		return errors.New("no role in the producer's context")
	})
	l := newLab(t, auth)
	e := l.produce(t, randomBytes(3*files.DefaultChunkSize, 4))
	err := l.fetch(context.Background(), e, nil)
	if !errors.Is(err, files.ErrRefused) || !strings.Contains(err.Error(), "no role in the producer's context") {
		t.Fatalf("err %v, want ErrRefused with the reason", err)
	}
	if want := fmt.Sprintf("%s %s consumer", l.cliHost.ID(), e.SHA256); len(asked) != 1 || asked[0] != want {
		t.Errorf("asked %q, want %q", asked, want)
	}
	if s := l.srv.Stats(); s.BytesServed != 0 || s.Refused != 1 || s.Transfers != 0 {
		t.Errorf("stats %+v", s)
	}
	if w := l.written(t); len(w) != 0 {
		t.Fatalf("written after a refusal: %v", w)
	}
}

func TestNotFound(t *testing.T) {
	l := newLab(t, allowAll)
	other := newLab(t, allowAll)
	e := other.produce(t, []byte("elsewhere"))
	if err := l.fetch(context.Background(), e, nil); !errors.Is(err, files.ErrNotFound) {
		t.Fatalf("err %v, want ErrNotFound", err)
	}
	if w := l.written(t); len(w) != 0 {
		t.Fatalf("written: %v", w)
	}
}

func TestShutdownTwice(t *testing.T) {
	l := newLab(t, allowAll)
	e := l.produce(t, []byte("x"))
	if err := l.srv.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := l.srv.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := l.fetch(context.Background(), e, nil); err == nil {
		t.Fatal("fetched from a server that is shut down")
	}
}

// After transfers, a cut one among them, and Shutdown, no goroutine of
// this package is left: neither a handler nor a client's chunk reader.
func TestNoGoroutineLeftAfterShutdown(t *testing.T) {
	l := newLab(t, allowAll)
	e := l.produce(t, randomBytes(8*files.DefaultChunkSize, 8))
	ctx, progress, _ := cutAt(e.Size / 2)
	_ = l.fetch(ctx, e, progress)
	if err := l.fetch(context.Background(), e, nil); err != nil {
		t.Fatal(err)
	}
	if err := l.srv.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		buf := make([]byte, 1<<20)
		stacks := string(buf[:runtime.Stack(buf, true)])
		if !strings.Contains(stacks, "hyphae/files/transfer.(*") {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("goroutines of package transfer left:\n%s", stacks)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
