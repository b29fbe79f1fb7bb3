package cas_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/hyphae-run/hyphae/files"
	"github.com/hyphae-run/hyphae/files/cas"
)

func open(t *testing.T, dir string, opt cas.Options) *cas.Store {
	t.Helper()
	st, err := cas.Open(dir, opt)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func put(t *testing.T, st *cas.Store, job, body string) files.Sum {
	t.Helper()
	sum, err := st.Put(context.Background(), job, bytes.NewBufferString(body))
	if err != nil {
		t.Fatal(err)
	}
	return sum
}

func TestPutNamesBlobBySHA256(t *testing.T) {
	dir := t.TempDir()
	st := open(t, dir, cas.Options{ChunkSize: files.MinChunkSize})
	body := string(bytes.Repeat([]byte("x"), files.MinChunkSize+1))
	sum := put(t, st, "j1", body)
	if !st.Has(sum.SHA256) || st.Used() != int64(len(body)) {
		t.Fatalf("has %v, used %d", st.Has(sum.SHA256), st.Used())
	}
	b, err := st.OpenBlob(sum.SHA256)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if b.Size != sum.Size || b.ChunkSize != files.MinChunkSize || len(b.Chunks) != 2 || files.ChunkRoot(b.ChunkSize, b.Chunks) != sum.Root() {
		t.Fatalf("blob %+v", b)
	}
	if fi, _ := os.Stat(st.Path(sum.SHA256)); fi.Mode().Perm() != 0o444 {
		t.Errorf("blob mode %v, want read-only", fi.Mode())
	}
	// The same content again is one blob; a reopened store counts it.
	put(t, st, "j2", body)
	if st2 := open(t, dir, cas.Options{}); st2.Used() != int64(len(body)) {
		t.Errorf("reopened: used %d", st2.Used())
	}
	if _, err := st.OpenBlob(string(bytes.Repeat([]byte("0"), 64))); !errors.Is(err, files.ErrNotFound) {
		t.Errorf("missing blob: %v", err)
	}
}

func TestPruneRemovesWhatNoJobHolds(t *testing.T) {
	st := open(t, t.TempDir(), cas.Options{})
	a := put(t, st, "job-a", "shared")
	put(t, st, "job-b", "shared")
	c := put(t, st, "job-b", "only b")
	if p, err := st.Prune(); err != nil || p.Blobs != 0 {
		t.Fatalf("held blobs pruned: %+v, %v", p, err)
	}
	if err := st.Release("job-b"); err != nil {
		t.Fatal(err)
	}
	p, err := st.Prune()
	if err != nil || p.Blobs != 1 || p.Bytes != int64(len("only b")) {
		t.Fatalf("prune: %+v, %v", p, err)
	}
	if !st.Has(a.SHA256) || st.Has(c.SHA256) {
		t.Fatalf("after release of job-b: shared %v, only-b %v", st.Has(a.SHA256), st.Has(c.SHA256))
	}
	_ = st.Release("job-a")
	if p, _ := st.Prune(); p.Blobs != 1 || st.Used() != 0 {
		t.Fatalf("last job gone: %+v, used %d", p, st.Used())
	}
}

func TestStoreBound(t *testing.T) {
	st := open(t, t.TempDir(), cas.Options{MaxBytes: 10})
	put(t, st, "j1", "123456")
	if _, err := st.Put(context.Background(), "j2", bytes.NewBufferString("abcdef")); !errors.Is(err, files.ErrStoreFull) {
		t.Fatalf("past the bound: %v", err)
	}
	if _, _, err := st.BeginPart(context.Background(), string(bytes.Repeat([]byte("a"), 64)), 5, files.MinChunkSize); !errors.Is(err, files.ErrStoreFull) {
		t.Fatalf("part past the bound: %v", err)
	}
	// Released content makes room: Put prunes before it refuses.
	_ = st.Release("j1")
	put(t, st, "j2", "abcdef")
	if st.Used() != 6 {
		t.Fatalf("used %d", st.Used())
	}
}

func TestPartResumesFromSidecar(t *testing.T) {
	dir := t.TempDir()
	src := open(t, t.TempDir(), cas.Options{ChunkSize: files.MinChunkSize})
	body := bytes.Repeat([]byte("0123456789"), files.MinChunkSize/2) // 5 chunks
	sum := put(t, src, "j", string(body))
	cs := int64(files.MinChunkSize)

	st := open(t, dir, cas.Options{})
	p, present, err := st.BeginPart(context.Background(), sum.SHA256, sum.Size, cs)
	if err != nil || present {
		t.Fatal(present, err)
	}
	for i := int64(0); i < 2; i++ {
		if err := p.WriteChunk(i, body[i*cs:(i+1)*cs]); err != nil {
			t.Fatal(err)
		}
	}
	p.Close()
	// A half-written third chunk past the sidecar's count is not counted.
	f, _ := os.OpenFile(filepath.Join(dir, "parts", sum.SHA256+".part"), os.O_WRONLY|os.O_APPEND, 0)
	_, _ = f.Write(body[2*cs : 2*cs+100])
	_ = f.Close()

	st = open(t, dir, cas.Options{}) // a restart
	p, _, err = st.BeginPart(context.Background(), sum.SHA256, sum.Size, cs)
	if err != nil || p.Verified() != 2 {
		t.Fatalf("verified %d, %v; want 2", p.Verified(), err)
	}
	if err := p.Rewind(1); err != nil || p.Verified() != 1 {
		t.Fatalf("rewind: %d, %v", p.Verified(), err)
	}
	for i := int64(1); i < 5; i++ {
		if err := p.WriteChunk(i, body[i*cs:min((i+1)*cs, int64(len(body)))]); err != nil {
			t.Fatal(err)
		}
	}
	if err := p.Commit("j", sum); err != nil {
		t.Fatal(err)
	}
	if !st.Has(sum.SHA256) || st.Used() != sum.Size {
		t.Fatalf("has %v, used %d", st.Has(sum.SHA256), st.Used())
	}
	if ents, _ := os.ReadDir(filepath.Join(dir, "parts")); len(ents) != 0 {
		t.Errorf("parts left: %v", ents)
	}
}

func TestPartOfPresentBlobAndOldParts(t *testing.T) {
	st := open(t, t.TempDir(), cas.Options{PartMaxAge: time.Nanosecond})
	sum := put(t, st, "j", "here")
	if p, present, err := st.BeginPart(context.Background(), sum.SHA256, sum.Size, files.DefaultChunkSize); p != nil || !present || err != nil {
		t.Fatalf("present blob: %v %v %v", p, present, err)
	}
	other := string(bytes.Repeat([]byte("b"), 64))
	p, _, err := st.BeginPart(context.Background(), other, 10, files.MinChunkSize)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.WriteChunk(0, []byte("0123456789")[:5]); err != nil {
		t.Fatal(err)
	}
	p.Close()
	time.Sleep(time.Millisecond)
	if pr, err := st.Prune(); err != nil || pr.Parts != 1 {
		t.Fatalf("old part: %+v, %v", pr, err)
	}
}
