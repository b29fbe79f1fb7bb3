package executor

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// heroLogDir is the one directory a hero job's log_path may name a file
// in: the worker's own log directory, <DataDir>/hero/<worker_id>/logs.
func (r *Runner) heroLogDir() string {
	dir := filepath.Join(r.cfg.DataDir, "hero", safeName(r.cfg.WorkerID), "logs")
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	return dir
}

// heroLogPath checks a job's log_path and returns the file it names (""
// when it names none). A relative path lies under the worker's log
// directory; an absolute one must lie there too, after `..` and every
// symlink on it are resolved, since the agent writes the file with its
// own rights (the seed: "Ensure log paths are within allowed
// directories") and a path to its key, token or config would overwrite
// them. It creates nothing: a refused path leaves no directory behind.
func (r *Runner) heroLogPath(p string) (string, error) {
	if p == "" {
		return "", nil
	}
	dir := r.heroLogDir()
	refuse := func(why string) error {
		return fmt.Errorf("log_path %s: outside the allowed directory %s (the hero worker's log directory; a relative log_path lies under it): %s", p, dir, why)
	}
	full := p
	if !filepath.IsAbs(full) {
		full = filepath.Join(dir, full)
	}
	full = filepath.Clean(full)
	realDir, err := resolveExisting(dir)
	if err != nil {
		return "", fmt.Errorf("log_path %s: %w", p, err)
	}
	real, err := resolveExisting(full)
	if err != nil {
		return "", fmt.Errorf("log_path %s: %w", p, err)
	}
	rel, ok := below(real, realDir)
	switch {
	case !ok && strictlyBelow(full, dir):
		return "", refuse("a symlink on the path leads out of it")
	case !ok:
		return "", refuse("it lies elsewhere")
	case rel == ".":
		return "", refuse("it names the directory itself")
	}
	return filepath.Join(dir, rel), nil
}

// strictlyBelow reports whether p lies under root (not root itself),
// comparing names only.
func strictlyBelow(p, root string) bool {
	rel, ok := below(p, root)
	return ok && rel != "."
}

// below returns p relative to root when p is root or lies under it.
func below(p, root string) (string, bool) {
	rel, err := filepath.Rel(root, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false
	}
	return rel, true
}

// resolveExisting resolves the symlinks of p's longest existing prefix
// and appends the rest unchanged (p is absolute and clean).
func resolveExisting(p string) (string, error) {
	rest := ""
	for q := p; ; q = filepath.Dir(q) {
		real, err := filepath.EvalSymlinks(q)
		if err == nil {
			return filepath.Join(real, rest), nil
		}
		if !errors.Is(err, os.ErrNotExist) || q == filepath.Dir(q) {
			return "", err
		}
		rest = filepath.Join(filepath.Base(q), rest)
	}
}

// heroWriteLog copies the job's output.log (every attempt on this
// worker so far) to its log_path, replacing what was there.
func (r *Runner) heroWriteLog(a *attempt, dir, logTo string) {
	if logTo == "" {
		return
	}
	if err := r.copyHeroLog(filepath.Join(dir, outputLog), logTo); err != nil {
		a.log.Warn("executor: hero log_path", "path", logTo, "err", err)
	}
}

// copyHeroLog writes from's bytes to the file logTo names in the log
// directory. It opens the directory as an os.Root, so neither `..` nor a
// symlink put there since heroLogPath looked can lead the write out of it,
// and writes a new file renamed over the old name, so a symlink or hard
// link left in its place is replaced, never written through.
func (r *Runner) copyHeroLog(from, logTo string) error {
	dir := r.heroLogDir()
	rel, ok := below(logTo, dir)
	if !ok || rel == "." {
		return fmt.Errorf("%s is not in %s", logTo, dir)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	if sub := filepath.Dir(rel); sub != "." {
		if err := root.MkdirAll(sub, 0o755); err != nil {
			return err
		}
	}
	var b [6]byte
	_, _ = rand.Read(b[:])
	tmp := filepath.Join(filepath.Dir(rel), "."+filepath.Base(rel)+".tmp-"+hex.EncodeToString(b[:]))
	dst, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	src, err := os.Open(from)
	if err == nil {
		_, err = io.Copy(dst, src)
		src.Close()
	} else if os.IsNotExist(err) {
		err = nil // a silent job: an empty log
	}
	if cerr := dst.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = root.Rename(tmp, rel)
	}
	if err != nil {
		_ = root.Remove(tmp)
	}
	return err
}
