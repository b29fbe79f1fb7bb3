package retention

import (
	"context"
	"errors"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/hyphae-run/hyphae/context/jobdir"
)

// orphanGrace is how long a job directory whose job no longer exists is
// left alone (or MaxAge, the age asked for, when shorter): a job deleted
// by hand may still be running in it.
const orphanGrace = time.Hour

// jobDirs is the attempt directories of a context's jobs, read once per
// sweep: job key → directory names.
type jobDirs struct {
	root  string
	byKey map[string][]fs.DirEntry
}

// readJobDirs reads root (a context's jobs directory; none yet is empty).
func readJobDirs(root string) (*jobDirs, error) {
	d := &jobDirs{root: root, byKey: map[string][]fs.DirEntry{}}
	entries, err := os.ReadDir(root)
	if errors.Is(err, fs.ErrNotExist) {
		return d, nil
	}
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		if key, ok := jobdir.JobOf(e.Name()); ok && e.IsDir() {
			d.byKey[key] = append(d.byKey[key], e)
		}
	}
	return d, nil
}

// remove removes the attempt directories of job key (dry: only measures
// them) and returns how many there were and the bytes of their files.
func (d *jobDirs) remove(key string, dry bool, log *slog.Logger) (int, int64) {
	var size int64
	n := 0
	for _, e := range d.byKey[key] {
		path := filepath.Join(d.root, e.Name())
		size += dirSize(path)
		n++
		if dry {
			continue
		}
		if err := os.RemoveAll(path); err != nil {
			log.Warn("retention: remove job directory", "dir", path, "err", err)
		}
	}
	delete(d.byKey, key)
	return n, size
}

// dirSize is the bytes of the regular files under path.
func dirSize(path string) int64 {
	var size int64
	_ = filepath.WalkDir(path, func(_ string, e fs.DirEntry, err error) error {
		if err == nil && e.Type().IsRegular() {
			if fi, err := e.Info(); err == nil {
				size += fi.Size()
			}
		}
		return nil
	})
	return size
}

// sweepOrphans removes the directories whose job no longer exists and that
// have not changed for r.orphanGrace.
func (j *Janitor) sweepOrphans(ctx context.Context, id uint64, r rules, dirs *jobDirs, rep *ContextReport) error {
	keys := make([]string, 0, len(dirs.byKey))
	for k := range dirs.byKey {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	old := time.Now().Add(-r.orphanGrace)
	for len(keys) > 0 {
		page := keys[:min(len(keys), 500)]
		keys = keys[len(page):]
		exists, err := j.st.Jobs.Existing(ctx, id, page)
		if err != nil {
			return err
		}
		for _, k := range page {
			if !exists[k] && dirs.unchangedSince(k, old) {
				n, size := dirs.remove(k, r.dry, j.log)
				rep.Dirs += n
				rep.DiskBytes += size
			}
		}
	}
	return nil
}

// unchangedSince reports whether every attempt directory of key was last
// modified before t.
func (d *jobDirs) unchangedSince(key string, t time.Time) bool {
	for _, e := range d.byKey[key] {
		fi, err := e.Info()
		if err != nil || !fi.ModTime().Before(t) {
			return false
		}
	}
	return true
}
