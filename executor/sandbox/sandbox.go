package sandbox

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
)

// Default dynamic uid range, as systemd's DynamicUser= uses.
const (
	DefaultUIDBase  = 61184
	DefaultUIDCount = 65519 - 61184 + 1
)

// ErrUnavailable is returned by Wrap when this agent cannot contain jobs;
// its text names the fix.
var ErrUnavailable = errors.New("this agent cannot contain jobs")

// Config says what a Sandbox hides and how it picks a job's user.
type Config struct {
	DataDir string   // required: hidden from every contained job
	Hide    []string // more files or directories to hide (a config file outside the data dir)
	// Expose lists paths contained jobs may read although a mask covers
	// them (the python interpreter's prefix under a hidden home).
	Expose []string
	// User runs contained jobs as this user (root mode only); "" = one uid
	// per context from the dynamic range.
	User string
	// PidsMax is the default pids limit of a contained job; enforced by
	// the caller's cgroups. Kept here so the plan is described in one place.
	PidsMax int64
	Log     *slog.Logger
}

// Sandbox contains jobs' processes on this machine. Its zero value is not
// usable; New probes what the machine allows.
type Sandbox struct {
	cfg      Config
	mu       sync.Mutex
	mode     Mode       // "" = cannot contain
	why      string     // why not, with the fix
	exe      string     // the agent's own binary, re-executed as the helper
	steps    []Step     // guarded by mu
	user     *user.User // Config.User, resolved
	uid, gid uint32     // Config.User's ids
}

// Mode returns how jobs are contained here, "" when they cannot be.
func (s *Sandbox) Mode() Mode { return s.mode }

// Why says why jobs cannot be contained here (Mode ""), with the fix.
func (s *Sandbox) Why() string { return s.why }

// Describe is one line for `hyphae info`.
func (s *Sandbox) Describe() string {
	switch s.mode {
	case ModeRoot:
		who := fmt.Sprintf("one uid per context from %d", DefaultUIDBase)
		if s.user != nil {
			who = "user " + s.user.Username
		}
		return "contained (as root: " + who + "; mount, pid, ipc namespaces; data dir hidden)"
	case ModeUserNS:
		return "contained (rootless: user, mount, pid, ipc namespaces; data dir and home hidden)"
	}
	return "cannot contain: " + s.why
}

// IDs returns the uid and gid a contained job of context ctxID runs as
// on the host (the owner its directory must have), and false when the
// job keeps the agent's (rootless).
func (s *Sandbox) IDs(ctxID uint64) (uid, gid int, ok bool) {
	if s.mode != ModeRoot {
		return 0, 0, false
	}
	if s.user != nil {
		return int(s.uid), int(s.gid), true
	}
	id := DefaultUIDBase + int(ctxID%DefaultUIDCount)
	return id, id, true
}

// plan lists the masks: the directories hidden under an empty tmpfs
// (outermost first, none under another) and the files covered, then the
// exposures that fall under a mask.
func plan(mode Mode, cfg Config) []Step {
	var dirs []string
	add := func(d string) {
		d = filepath.Clean(d)
		if fi, err := os.Stat(d); d == "/" || err != nil || !fi.IsDir() {
			return
		}
		dirs = append(dirs, d)
	}
	data := absOr(cfg.DataDir)
	if mode == ModeRoot {
		add(untraversable(data))
	} else {
		add(data)
		if home, err := os.UserHomeDir(); err == nil && home != "" {
			add(home)
		}
		add("/run/user/" + strconv.Itoa(os.Getuid()))
	}
	if mode == ModeRoot {
		for _, e := range cfg.Expose {
			if a := untraversable(absOr(e)); a != absOr(e) {
				add(a)
			}
		}
	}
	var files []string
	for _, h := range cfg.Hide {
		h = absOr(h)
		if fi, err := os.Stat(h); err == nil && !fi.IsDir() {
			files = append(files, h)
		} else if err == nil {
			add(h)
		}
	}
	dirs = outermost(dirs)
	var steps []Step
	for _, d := range dirs {
		steps = append(steps, Step{Kind: stepTmpfs, Target: d})
	}
	for _, f := range files {
		if !under(f, dirs) {
			steps = append(steps, Step{Kind: stepNull, Target: f})
		}
	}
	for _, e := range cfg.Expose {
		if e = absOr(e); under(e, dirs) && !under(data, []string{e}) {
			steps = append(steps, Step{Kind: stepExpose, Target: e})
		}
	}
	return steps
}

// untraversable returns the highest ancestor of dir (or dir itself) that
// other users cannot traverse: a job's uid could not reach the job
// directory through it, so it is masked whole and rebuilt.
func untraversable(dir string) string {
	parts := strings.Split(strings.TrimPrefix(dir, "/"), "/")
	p := "/"
	for _, part := range parts {
		p = filepath.Join(p, part)
		if p == dir {
			break
		}
		if fi, err := os.Stat(p); err == nil && fi.Mode().Perm()&0o001 == 0 {
			return p
		}
	}
	return dir
}

// outermost drops duplicates and directories under another in the list.
func outermost(dirs []string) []string {
	var out []string
	for i, d := range dirs {
		keep := true
		for j, o := range dirs {
			if i != j && (under(d, []string{o}) && d != o || d == o && j < i) {
				keep = false
				break
			}
		}
		if keep {
			out = append(out, d)
		}
	}
	return out
}

// under reports whether p is one of dirs or inside one.
func under(p string, dirs []string) bool {
	for _, d := range dirs {
		if p == d || strings.HasPrefix(p, d+"/") {
			return true
		}
	}
	return false
}

func absOr(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		if r, err := filepath.EvalSymlinks(a); err == nil {
			return r
		}
		return a
	}
	return filepath.Clean(p)
}

// Expose lets contained jobs read path (read-only) although a mask
// covers it; it applies to jobs wrapped after the call.
func (s *Sandbox) Expose(path string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cfg.Expose = append(s.cfg.Expose, path)
	if s.mode != "" {
		s.steps = plan(s.mode, s.cfg)
	}
}
