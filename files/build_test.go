package files_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/hyphae-run/hyphae/files"
)

func TestBuildRecordsMatchedRegularFiles(t *testing.T) {
	dir := jobDir(t)
	for _, tc := range []struct {
		outputs []string
		want    []string
	}{
		{[]string{"out"}, []string{"out/a.txt", "out/sub/b.bin"}},
		{[]string{"*.txt"}, []string{"log.txt"}},
		{[]string{"out/*/*.bin", "log.txt"}, []string{"log.txt", "out/sub/b.bin"}},
		{[]string{"link-in"}, []string{"link-in"}},
		{[]string{"./out/../log.txt"}, []string{"log.txt"}},
		{[]string{"missing"}, nil},
	} {
		es, _, err := build(t, dir, tc.outputs...)
		if err != nil {
			t.Fatalf("%v: %v", tc.outputs, err)
		}
		if got := paths(es); !slices.Equal(got, tc.want) {
			t.Errorf("%v: got %v, want %v", tc.outputs, got, tc.want)
		}
	}
}

func TestBuildEntryMatchesContent(t *testing.T) {
	dir := jobDir(t)
	es, st, err := build(t, dir, "out/sub/b.bin", "link-in")
	if err != nil {
		t.Fatal(err)
	}
	beta := sha256.Sum256([]byte("beta"))
	b := es[1]
	if b.Path != "out/sub/b.bin" || b.Size != 4 || b.SHA256 != hex.EncodeToString(beta[:]) || b.Mode != 0o755 {
		t.Errorf("entry %+v", b)
	}
	if b.ChunkSize != files.DefaultChunkSize || b.ChunkRoot != files.ChunkRoot(b.ChunkSize, [][32]byte{beta}) {
		t.Errorf("chunking %+v", b)
	}
	if err := b.Check(); err != nil {
		t.Error(err)
	}
	alpha := sha256.Sum256([]byte("alpha\n"))
	if es[0].SHA256 != hex.EncodeToString(alpha[:]) {
		t.Errorf("link-in: %s, want the content of out/a.txt", es[0].SHA256)
	}
	for _, e := range es {
		if !st.Has(e.SHA256) {
			t.Errorf("%s not in the store", e.Path)
		}
	}
}

func TestBuildRefusesBadNames(t *testing.T) {
	dir := jobDir(t)
	outside := t.TempDir()
	write(t, outside, "secret", "s3cret", 0o600)
	symlink(t, filepath.Join(outside, "secret"), filepath.Join(dir, "link-out"))
	symlink(t, outside, filepath.Join(dir, "escdir"))
	symlink(t, "../../"+filepath.Base(outside), filepath.Join(dir, "out", "rel-out"))
	for _, tc := range []struct {
		outputs []string
		want    error
	}{
		{[]string{"/etc/passwd"}, files.ErrAbsolutePath},
		{[]string{"../x"}, files.ErrOutsideDir},
		{[]string{"out/../../x"}, files.ErrOutsideDir},
		{[]string{".."}, files.ErrOutsideDir},
		{[]string{""}, files.ErrBadName},
		{[]string{"[x"}, files.ErrBadName},
		{[]string{"link-out"}, files.ErrSymlinkEscape},
		{[]string{"escdir/secret"}, files.ErrSymlinkEscape},
		{[]string{"esc*/*"}, files.ErrSymlinkEscape},
		{[]string{"link-*"}, files.ErrSymlinkEscape},
		{[]string{"."}, files.ErrSymlinkEscape},
		{[]string{"out"}, files.ErrSymlinkEscape},
	} {
		es, st, err := build(t, dir, tc.outputs...)
		if !errors.Is(err, tc.want) {
			t.Errorf("%q: err %v, want %v", tc.outputs, err, tc.want)
		}
		if es != nil || st.Used() != 0 {
			t.Errorf("%q: %d entries, %d bytes stored after a refusal", tc.outputs, len(es), st.Used())
		}
	}
}

func TestBuildAbsoluteSymlinkInsideIsRefused(t *testing.T) {
	dir := jobDir(t)
	symlink(t, filepath.Join(dir, "log.txt"), filepath.Join(dir, "abs-in"))
	if _, _, err := build(t, dir, "abs-in"); !errors.Is(err, files.ErrSymlinkEscape) {
		t.Fatalf("err %v, want ErrSymlinkEscape (os.Root refuses absolute links)", err)
	}
}

func TestBuildLimits(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "a", string(make([]byte, 3000)), 0o644)
	write(t, dir, "b", string(make([]byte, 3000)), 0o644)
	for _, tc := range []struct {
		lim  files.Limits
		want error
	}{
		{files.Limits{MaxFileBytes: 2999}, files.ErrFileTooLarge},
		{files.Limits{MaxJobBytes: 5999}, files.ErrJobTooLarge},
		{files.Limits{MaxFileBytes: 3000, MaxJobBytes: 6000}, nil},
	} {
		st := openStore(t)
		_, err := files.Build(context.Background(), dir, []string{"."}, tc.lim, "j", st)
		if !errors.Is(err, tc.want) {
			t.Errorf("%+v: err %v, want %v", tc.lim, err, tc.want)
		}
		if tc.want != nil && st.Used() != 0 {
			t.Errorf("%+v: %d bytes stored after the refusal", tc.lim, st.Used())
		}
	}
	if l := files.LimitsMB(2, 3); l.MaxFileBytes != 2<<20 || l.MaxJobBytes != 3<<20 {
		t.Errorf("LimitsMB: %+v", l)
	}
}

func TestBuildSkipsNonRegular(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "x", "x", 0o644)
	symlink(t, "nowhere", filepath.Join(dir, "dangling"))
	if err := os.MkdirAll(filepath.Join(dir, "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	es, _, err := build(t, dir, ".")
	if err != nil || !slices.Equal(paths(es), []string{"x"}) {
		t.Fatalf("got %v, %v; want [x]", paths(es), err)
	}
}
