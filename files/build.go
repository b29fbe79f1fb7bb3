package files

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// Putter keeps a file's bytes and returns their sum, held for jobRef:
// cas.Store.
type Putter interface {
	Put(ctx context.Context, jobRef string, r io.Reader) (Sum, error)
}

// Found is one file of a job's directory that its outputs match.
type Found struct {
	Path string // relative, slash-separated
	Size int64
	Mode uint32 // permission bits
}

// Build records the regular files under dir that outputs match as the
// job's entries, each put into store and held for jobRef. Names and
// sizes are checked (Match) before anything is stored.
func Build(ctx context.Context, dir string, outputs []string, lim Limits, jobRef string, store Putter) ([]Entry, error) {
	found, err := Match(dir, outputs, lim)
	if err != nil {
		return nil, err
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("files.Build: %w", err)
	}
	defer root.Close()
	t := newTally(lim)
	entries := make([]Entry, 0, len(found))
	for _, f := range found {
		e, err := putOne(ctx, root, f, jobRef, store, t)
		if err != nil {
			return nil, fmt.Errorf("files.Build: %w", err)
		}
		entries = append(entries, e)
	}
	return entries, nil
}

// putOne stores one found file, opened through root so that a symlink
// swapped in since Match cannot lead outside.
func putOne(ctx context.Context, root *os.Root, f Found, jobRef string, store Putter, t *tally) (Entry, error) {
	fh, err := root.Open(filepath.FromSlash(f.Path))
	if err != nil {
		return Entry{}, fmt.Errorf("%w: %s: %v", ErrSymlinkEscape, f.Path, err)
	}
	defer fh.Close()
	fi, err := fh.Stat()
	if err != nil {
		return Entry{}, err
	}
	if !fi.Mode().IsRegular() {
		return Entry{}, fmt.Errorf("%w: %s is no longer a regular file", ErrBadName, f.Path)
	}
	// One byte past the bound, so that a file that grew is refused.
	sum, err := store.Put(ctx, jobRef, io.LimitReader(fh, t.lim.MaxFileBytes+1))
	if err != nil {
		return Entry{}, fmt.Errorf("%s: %w", f.Path, err)
	}
	if err := t.add(f.Path, sum.Size); err != nil {
		return Entry{}, err
	}
	return sum.Entry(f.Path, uint32(fi.Mode().Perm())), nil
}

// Match returns the regular files under dir that outputs (path.Match
// patterns relative to dir; a matched folder brings every file under it)
// match, in lexical order. It refuses an absolute or escaping pattern, a
// symlink on the way that points outside dir, and files past lim.
func Match(dir string, outputs []string, lim Limits) ([]Found, error) {
	ps := make(patterns, 0, len(outputs))
	for _, o := range outputs {
		c, err := cleanPattern(o)
		if err != nil {
			return nil, fmt.Errorf("files.Match: %w", err)
		}
		ps = append(ps, c)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("files.Match: %w", err)
	}
	defer root.Close()
	w := &walker{root: root, dir: dir, ps: ps, t: newTally(lim)}
	if err := fs.WalkDir(root.FS(), ".", w.visit); err != nil {
		return nil, fmt.Errorf("files.Match: %w", err)
	}
	return w.found, nil
}

type walker struct {
	root  *os.Root
	dir   string
	ps    patterns
	t     *tally
	found []Found
}

func (w *walker) visit(p string, d fs.DirEntry, err error) error {
	if err != nil || p == "." {
		return err
	}
	full := w.ps.full(p)
	switch {
	case d.IsDir():
		if full || w.ps.prefix(p) {
			return nil
		}
		return fs.SkipDir
	case d.Type()&fs.ModeSymlink != 0:
		if full || w.ps.prefix(p) {
			return w.symlink(p, full)
		}
	case d.Type().IsRegular() && full:
		fi, err := d.Info()
		if err != nil {
			return err
		}
		return w.add(p, fi)
	}
	return nil
}

// symlink takes a symlink that is an output or on the way to one: one
// that leads outside dir is refused, one to a regular file inside is an
// output, one to a folder is not followed, a dangling one is skipped.
func (w *walker) symlink(p string, full bool) error {
	fi, err := w.root.Stat(filepath.FromSlash(p))
	if err != nil {
		if _, errOut := os.Stat(filepath.Join(w.dir, filepath.FromSlash(p))); errOut == nil || !errors.Is(errOut, fs.ErrNotExist) {
			return fmt.Errorf("%w: %s", ErrSymlinkEscape, p)
		}
		return nil
	}
	if full && fi.Mode().IsRegular() {
		return w.add(p, fi)
	}
	return nil
}

func (w *walker) add(p string, fi fs.FileInfo) error {
	if err := w.t.add(p, fi.Size()); err != nil {
		return err
	}
	w.found = append(w.found, Found{Path: p, Size: fi.Size(), Mode: uint32(fi.Mode().Perm())})
	return nil
}
