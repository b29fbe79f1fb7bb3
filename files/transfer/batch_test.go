package transfer_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/hyphae-run/hyphae/files"
	"github.com/hyphae-run/hyphae/files/transfer"
	"github.com/libp2p/go-libp2p/core/peer"
)

// produceMany puts n small files (and an empty one) into the serving
// agent's store.
func (l *lab) produceMany(t *testing.T, n int) ([]files.Entry, map[string][]byte) {
	t.Helper()
	var es []files.Entry
	bodies := map[string][]byte{}
	for i := range n {
		body := randomBytes(100+i*97, uint64(100+i))
		e := l.produce(t, body)
		e.Path = fmt.Sprintf("out/f%03d", i)
		es = append(es, e)
		bodies[e.SHA256] = body
	}
	empty := l.produce(t, nil)
	return append(es, empty), bodies
}

// FetchAll moves many small files and a large one, on one stream for the
// small ones, each verified; a second FetchAll moves nothing.
func TestFetchAllBatches(t *testing.T) {
	l := newLab(t, allowAll)
	es, bodies := l.produceMany(t, 40)
	big := randomBytes(3*files.DefaultChunkSize+5, 9)
	eb := l.produce(t, big)
	bodies[eb.SHA256] = big
	es = append(es, eb, es[3]) // a duplicate moves once
	var last, total int64
	if err := l.cli.FetchAll(context.Background(), l.srvHost.ID(), es, "consumer", func(d, tot int64) { last, total = d, tot }); err != nil {
		t.Fatal(err)
	}
	for _, e := range es {
		if !bytes.Equal(l.received(t, e), bodies[e.SHA256]) {
			t.Fatalf("%s differs", e.Path)
		}
	}
	if last != total {
		t.Errorf("progress ended at %d of %d", last, total)
	}
	if s := l.srv.Stats(); s.Transfers != int64(len(es)-1) {
		t.Errorf("stats %+v, want %d transfers", s, len(es)-1)
	}
	before := l.srv.Stats()
	if err := l.cli.FetchAll(context.Background(), l.srvHost.ID(), es, "consumer2", nil); err != nil || l.srv.Stats() != before {
		t.Fatalf("second FetchAll: %v, %+v", err, l.srv.Stats())
	}
}

// A refused blob in a batch writes nothing; the others arrive.
func TestFetchAllRefusesOne(t *testing.T) {
	var deny string
	l := newLab(t, transfer.AuthorizerFunc(func(_ context.Context, _ peer.ID, sha, _ string) error {
		if sha == deny {
			return errors.New("no role")
		}
		return nil
	}))
	es, _ := l.produceMany(t, 5)
	deny = es[2].SHA256
	err := l.cli.FetchAll(context.Background(), l.srvHost.ID(), es, "consumer", nil)
	if !errors.Is(err, files.ErrRefused) {
		t.Fatalf("FetchAll with a refused blob: %v", err)
	}
	for _, e := range es {
		if l.cliStore.Has(e.SHA256) == (e.SHA256 == deny) {
			t.Errorf("%s: in the store %v", e.Path, l.cliStore.Has(e.SHA256))
		}
	}
	for _, p := range l.written(t) {
		if bytes.Contains([]byte(p), []byte(deny)) {
			t.Errorf("refused blob left %s", p)
		}
	}
}

// A batch cut part way keeps what it verified: the next FetchAll asks
// each blob from its verified prefix, and no blob moves whole twice.
func TestFetchAllCutResumes(t *testing.T) {
	l := newLab(t, allowAll)
	es, bodies := l.produceMany(t, 30)
	var size int64
	for _, e := range es {
		size += e.Size
	}
	ctx, progress, verified := cutAt(size / 2)
	if err := l.cli.FetchAll(ctx, l.srvHost.ID(), es, "consumer", progress); !isCut(err) {
		t.Fatalf("cut FetchAll: %v", err)
	}
	first := l.servedWhenIdle(t)
	if err := l.cli.FetchAll(context.Background(), l.srvHost.ID(), es, "consumer", nil); err != nil {
		t.Fatal(err)
	}
	second := l.srv.Stats().BytesServed - first
	if second > size-*verified {
		t.Errorf("resume served %d bytes, want at most %d", second, size-*verified)
	}
	for _, e := range es {
		if !bytes.Equal(l.received(t, e), bodies[e.SHA256]) {
			t.Fatalf("%s differs", e.Path)
		}
	}
}
