package files_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/hyphae-run/hyphae/files"
)

func TestMaterialisePlacesFilesUnderIn(t *testing.T) {
	es, st, err := build(t, jobDir(t), "out", "log.txt")
	if err != nil {
		t.Fatal(err)
	}
	dst := t.TempDir()
	in, err := files.Materialise(context.Background(), dst, "producer", es, files.Limits{}, st.OpenFile)
	if err != nil {
		t.Fatal(err)
	}
	if in != filepath.Join(dst, "in", "producer") {
		t.Errorf("folder %s", in)
	}
	for rel, want := range map[string]string{"out/a.txt": "alpha\n", "out/sub/b.bin": "beta", "log.txt": "log"} {
		b, err := os.ReadFile(filepath.Join(in, rel))
		if err != nil || string(b) != want {
			t.Errorf("%s: %q, %v; want %q", rel, b, err, want)
		}
	}
	if fi, _ := os.Stat(filepath.Join(in, "out/sub/b.bin")); fi.Mode().Perm() != 0o755 {
		t.Errorf("mode %v", fi.Mode())
	}
	// Again, over what is there: replaced, not refused.
	if _, err := files.Materialise(context.Background(), dst, "producer", es, files.Limits{}, st.OpenFile); err != nil {
		t.Fatal(err)
	}
}

func TestMaterialiseRefusesBadNames(t *testing.T) {
	es, st, err := build(t, jobDir(t), "log.txt")
	if err != nil {
		t.Fatal(err)
	}
	good := es[0]
	with := func(p string) []files.Entry { e := good; e.Path = p; return []files.Entry{e} }
	for _, tc := range []struct {
		name     string
		producer string
		entries  []files.Entry
		want     error
	}{
		{"absolute", "p", with("/etc/passwd"), files.ErrAbsolutePath},
		{"dotdot", "p", with("../../x"), files.ErrOutsideDir},
		{"inner dotdot", "p", with("a/../../x"), files.ErrOutsideDir},
		{"not canonical", "p", with("a//b"), files.ErrBadName},
		{"producer path", "a/b", es, files.ErrBadName},
		{"producer dotdot", "..", es, files.ErrOutsideDir},
		{"bad digest", "p", func() []files.Entry { e := good; e.SHA256 = "x"; return []files.Entry{e} }(), files.ErrBadEntry},
	} {
		dst := t.TempDir()
		_, err := files.Materialise(context.Background(), dst, tc.producer, tc.entries, files.Limits{}, st.OpenFile)
		if !errors.Is(err, tc.want) {
			t.Errorf("%s: err %v, want %v", tc.name, err, tc.want)
		}
		if ents, _ := os.ReadDir(dst); len(ents) != 0 {
			t.Errorf("%s: %d things written after a refusal", tc.name, len(ents))
		}
	}
}

func TestMaterialiseRefusesSymlinkedFolders(t *testing.T) {
	es, st, err := build(t, jobDir(t), "out")
	if err != nil {
		t.Fatal(err)
	}
	outside := t.TempDir()
	for _, link := range []string{"in", "in/p", "in/p/out"} {
		dst := t.TempDir()
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dst, link)), 0o755); err != nil {
			t.Fatal(err)
		}
		symlink(t, outside, filepath.Join(dst, link))
		_, err := files.Materialise(context.Background(), dst, "p", es, files.Limits{}, st.OpenFile)
		if !errors.Is(err, files.ErrSymlinkEscape) {
			t.Errorf("%s a symlink: err %v, want ErrSymlinkEscape", link, err)
		}
		if ents, _ := os.ReadDir(outside); len(ents) != 0 {
			t.Errorf("%s a symlink: %d things written outside", link, len(ents))
		}
	}
}

func TestMaterialiseReplacesSymlinkNotFollows(t *testing.T) {
	es, st, err := build(t, jobDir(t), "log.txt")
	if err != nil {
		t.Fatal(err)
	}
	dst, outside := t.TempDir(), t.TempDir()
	write(t, outside, "victim", "untouched", 0o644)
	write(t, dst, "in/p/.keep", "", 0o644)
	symlink(t, filepath.Join(outside, "victim"), filepath.Join(dst, "in/p/log.txt"))
	if _, err := files.Materialise(context.Background(), dst, "p", es, files.Limits{}, st.OpenFile); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(outside, "victim")); string(b) != "untouched" {
		t.Errorf("victim now %q", b)
	}
	if fi, err := os.Lstat(filepath.Join(dst, "in/p/log.txt")); err != nil || !fi.Mode().IsRegular() {
		t.Errorf("in/p/log.txt: %v, %v; want a regular file", fi, err)
	}
}

func TestMaterialiseLimits(t *testing.T) {
	es, st, err := build(t, jobDir(t), "out")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		lim  files.Limits
		want error
	}{
		{files.Limits{MaxFileBytes: 5}, files.ErrFileTooLarge},
		{files.Limits{MaxJobBytes: 9}, files.ErrJobTooLarge},
	} {
		dst := t.TempDir()
		if _, err := files.Materialise(context.Background(), dst, "p", es, tc.lim, st.OpenFile); !errors.Is(err, tc.want) {
			t.Errorf("%+v: err %v, want %v", tc.lim, err, tc.want)
		}
		if ents, _ := os.ReadDir(dst); len(ents) != 0 {
			t.Errorf("%+v: written past the limit", tc.lim)
		}
	}
}
