package files_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/hyphae-run/hyphae/files"
	"github.com/hyphae-run/hyphae/files/cas"
)

// write makes the file rel under dir with body, and its folders.
func write(t *testing.T, dir, rel, body string, mode os.FileMode) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, mode); err != nil {
		t.Fatal(err)
	}
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

func openStore(t *testing.T) *cas.Store {
	t.Helper()
	st, err := cas.Open(filepath.Join(t.TempDir(), "files"), cas.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// jobDir is a producer's directory:
//
//	out/a.txt  out/sub/b.bin  log.txt  link-in -> out/a.txt
func jobDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	write(t, dir, "out/a.txt", "alpha\n", 0o644)
	write(t, dir, "out/sub/b.bin", "beta", 0o755)
	write(t, dir, "log.txt", "log", 0o600)
	symlink(t, "out/a.txt", filepath.Join(dir, "link-in"))
	return dir
}

func build(t *testing.T, dir string, outputs ...string) ([]files.Entry, *cas.Store, error) {
	t.Helper()
	st := openStore(t)
	es, err := files.Build(context.Background(), dir, outputs, files.Limits{}, "job-1", st)
	return es, st, err
}

func paths(es []files.Entry) []string {
	var ps []string
	for _, e := range es {
		ps = append(ps, e.Path)
	}
	return ps
}
