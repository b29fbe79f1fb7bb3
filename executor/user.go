package executor

import (
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// runAs holds the credentials jobs run with when Config.User is set.
type runAs struct {
	name string
	cred *syscall.Credential
}

// resolveUser looks up Config.User. The agent must be root to switch to
// it, and every parent of the data dir must be searchable by others, since
// the jobs reach their directories through it.
func resolveUser(name, dataDir string) (*runAs, error) {
	if name == "" {
		return nil, nil
	}
	if os.Geteuid() != 0 {
		return nil, fmt.Errorf("runner.user %q: the agent must run as root to start jobs as another user", name)
	}
	u, err := user.Lookup(name)
	if err != nil {
		return nil, fmt.Errorf("runner.user: %w", err)
	}
	uid, err1 := strconv.ParseUint(u.Uid, 10, 32)
	gid, err2 := strconv.ParseUint(u.Gid, 10, 32)
	if err1 != nil || err2 != nil {
		return nil, fmt.Errorf("runner.user %q: non-numeric uid/gid %s/%s", name, u.Uid, u.Gid)
	}
	if err := searchableParents(dataDir); err != nil {
		return nil, fmt.Errorf("runner.user %q: %w", name, err)
	}
	return &runAs{name: name, cred: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}}, nil
}

// searchableParents checks that others may traverse every parent of dir.
func searchableParents(dir string) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	for p := filepath.Dir(abs); ; p = filepath.Dir(p) {
		fi, err := os.Stat(p)
		if err == nil && fi.Mode().Perm()&0o001 == 0 {
			return fmt.Errorf("%s (mode %v) is not searchable by other users; put the data dir somewhere like /var/lib/hyphae", p, fi.Mode().Perm())
		}
		if p == filepath.Dir(p) {
			return nil
		}
	}
}

// handOver gives a job's directory and script to the job's user and makes
// the directories above it (inside the data dir) searchable but not
// listable, so the user reaches its own directory and nothing else.
func (r *Runner) handOver(dir, file string) error {
	if r.user == nil {
		return nil
	}
	root := filepath.Clean(r.cfg.DataDir)
	for p := filepath.Dir(dir); strings.HasPrefix(p, root); p = filepath.Dir(p) {
		if err := os.Chmod(p, 0o711); err != nil {
			return err
		}
		if p == root {
			break
		}
	}
	uid, gid := int(r.user.cred.Uid), int(r.user.cred.Gid)
	for _, p := range []string{dir, file} {
		if err := os.Chown(p, uid, gid); err != nil {
			return err
		}
	}
	return nil
}
