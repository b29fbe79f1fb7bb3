package files

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
)

// Opener opens the bytes of a blob by its sha256: cas.Store.OpenFile.
type Opener func(sha string) (io.ReadCloser, error)

// InDir is the folder of a job's directory that its inputs go to.
const InDir = "in"

// Materialise writes entries into dir's in/<producer>/ (in/ itself when
// producer is empty), reading each blob through open, and returns that
// folder's path. Every name is checked before anything is written: a bad
// entry path, a producer that is not one path element, sizes past lim,
// and a symlink standing where one of the folders goes are refused. A
// file already there is replaced (a rename, which never follows a
// symlink).
func Materialise(ctx context.Context, dir, producer string, entries []Entry, lim Limits, open Opener) (string, error) {
	sub := InDir
	if producer != "" {
		if err := CheckName(producer); err != nil {
			return "", fmt.Errorf("files.Materialise: producer: %w", err)
		}
		sub = InDir + "/" + producer
	}
	t := newTally(lim)
	for _, e := range entries {
		if err := e.Check(); err != nil {
			return "", fmt.Errorf("files.Materialise: %w", err)
		}
		if err := t.add(e.Path, e.Size); err != nil {
			return "", fmt.Errorf("files.Materialise: %w", err)
		}
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return "", fmt.Errorf("files.Materialise: %w", err)
	}
	defer root.Close()
	for _, e := range entries {
		if err := ctx.Err(); err != nil {
			return "", fmt.Errorf("files.Materialise: %w", err)
		}
		if err := place(root, sub+"/"+e.Path, e, open); err != nil {
			return "", fmt.Errorf("files.Materialise: %s: %w", e.Path, err)
		}
	}
	return filepath.Join(dir, filepath.FromSlash(sub)), nil
}

// place writes one entry at rel (under root) through a temporary name.
func place(root *os.Root, rel string, e Entry, open Opener) error {
	if err := mkdirs(root, path.Dir(rel)); err != nil {
		return err
	}
	src, err := open(e.SHA256)
	if err != nil {
		return err
	}
	defer src.Close()
	tmp := path.Join(path.Dir(rel), "."+path.Base(rel)+".tmp-"+randHex())
	dst, err := root.OpenFile(filepath.FromSlash(tmp), os.O_WRONLY|os.O_CREATE|os.O_EXCL, fs.FileMode(e.Mode)|0o200)
	if err != nil {
		return err
	}
	// Between two files io.Copy is copy_file_range: the kernel copies,
	// and on XFS and btrfs shares the blocks copy-on-write (a reflink,
	// measured in BENCHMARKS.md); a job that rewrites its input changes
	// its own copy only, never the store's blob, as a hard link would.
	n, err := io.Copy(dst, src)
	if err == nil && n != e.Size {
		err = fmt.Errorf("%w: blob %s has %d bytes, the entry says %d", ErrCorrupt, e.SHA256, n, e.Size)
	}
	if cerr := dst.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = root.Chmod(filepath.FromSlash(tmp), fs.FileMode(e.Mode))
	}
	if err == nil {
		err = root.Rename(filepath.FromSlash(tmp), filepath.FromSlash(rel))
	}
	if err != nil {
		_ = root.Remove(filepath.FromSlash(tmp))
	}
	return err
}

// mkdirs makes the folders of rel one by one, refusing a symlink or a
// file where a folder goes.
func mkdirs(root *os.Root, rel string) error {
	if rel == "." {
		return nil
	}
	if err := mkdirs(root, path.Dir(rel)); err != nil {
		return err
	}
	name := filepath.FromSlash(rel)
	fi, err := root.Lstat(name)
	switch {
	case err == nil && fi.Mode()&fs.ModeSymlink != 0:
		return fmt.Errorf("%w: %s is a symlink", ErrSymlinkEscape, rel)
	case err == nil && !fi.IsDir():
		return fmt.Errorf("%w: %s is a file where a folder goes", ErrBadName, rel)
	case err == nil:
		return nil
	case !os.IsNotExist(err):
		return err
	}
	return root.Mkdir(name, 0o755)
}

func randHex() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
