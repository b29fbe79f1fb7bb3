package executor

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// heroLogPath resolves a job's log_path: a relative path lies under
// <DataDir>/hero/<worker_id>/logs; any path must stay inside DataDir or
// the system's temporary directory (the seed: "Ensure log paths are
// within allowed directories"), since the agent writes it with its own
// rights.
func (r *Runner) heroLogPath(p string) (string, error) {
	if p == "" {
		return "", nil
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(r.cfg.DataDir, "hero", safeName(r.cfg.WorkerID), "logs", p)
	}
	p = filepath.Clean(p)
	roots := []string{r.cfg.DataDir, os.TempDir()}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return "", fmt.Errorf("log_path %s: %w", p, err)
	}
	real, err := filepath.EvalSymlinks(filepath.Dir(p))
	if err != nil {
		return "", fmt.Errorf("log_path %s: %w", p, err)
	}
	for _, root := range roots {
		if within(p, root) && within(filepath.Join(real, filepath.Base(p)), realPath(root)) {
			return p, nil
		}
	}
	return "", fmt.Errorf("log_path %s: outside the allowed directories (%s)", p, strings.Join(roots, ", "))
}

// within reports whether p is root or lies under it.
func within(p, root string) bool {
	rel, err := filepath.Rel(filepath.Clean(root), p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

func realPath(p string) string {
	if real, err := filepath.EvalSymlinks(p); err == nil {
		return real
	}
	return p
}

// heroWriteLog copies the job's output.log (every attempt on this
// worker so far) to its log_path, replacing what was there; the final
// component is never followed as a symlink.
func (r *Runner) heroWriteLog(a *attempt, dir, logTo string) {
	if logTo == "" {
		return
	}
	if err := copyLog(filepath.Join(dir, outputLog), logTo); err != nil {
		a.log.Warn("executor: hero log_path", "path", logTo, "err", err)
	}
}

func copyLog(from, to string) error {
	dst, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_TRUNC|syscall.O_NOFOLLOW, 0o644)
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
	return err
}
