//go:build !linux

package cas

import (
	"os"
	"path/filepath"
)

// openPartFile opens a part's bytes for writing, through the page cache.
func openPartFile(path string, _ bool) (*os.File, bool, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	return f, false, err
}

func endDirect(*os.File) error { return nil }

// startWriteback does nothing here: the sync before a part is named
// writes the whole file.
func startWriteback(*os.File, int64, int64) {}

// syncAll makes the files at paths and the folders that name them
// durable, one sync each.
func syncAll(_ string, paths []string) error {
	dirs := map[string]bool{}
	for _, p := range paths {
		if err := syncPath(p); err != nil {
			return err
		}
		dirs[filepath.Dir(p)] = true
	}
	for d := range dirs {
		if err := syncDir(d); err != nil {
			return err
		}
	}
	return nil
}

func syncPath(p string) error {
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	err = f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
