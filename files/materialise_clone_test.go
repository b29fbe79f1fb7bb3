package files_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"

	"github.com/hyphae-run/hyphae/files"
)

// TestMaterialiseChangeLeavesBlob: a job that rewrites its input changes
// its own file only, never the store's blob (a reflink is copy-on-write;
// a copy is a copy), whatever the file system does.
func TestMaterialiseChangeLeavesBlob(t *testing.T) {
	es, st, err := build(t, jobDir(t), "out/a.txt")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	in, err := files.Materialise(context.Background(), dir, "p", es, files.Limits{}, st.OpenFile)
	if err != nil {
		t.Fatal(err)
	}
	placed := filepath.Join(in, "out", "a.txt")
	if err := os.WriteFile(placed, []byte("changed by the job\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	blob, err := os.ReadFile(st.Path(es[0].SHA256))
	if err != nil {
		t.Fatal(err)
	}
	if sum := sha256.Sum256(blob); hex.EncodeToString(sum[:]) != es[0].SHA256 || string(blob) != "alpha\n" {
		t.Fatalf("the store's blob is now %q", blob)
	}
}
