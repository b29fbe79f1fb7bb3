package sandbox

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// New probes how this machine lets the agent contain jobs: as root, or
// rootless through user namespaces. A Sandbox that cannot contain is
// still returned; Wrap then fails with ErrUnavailable and Why says why.
func New(cfg Config) (*Sandbox, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("sandbox.New: %w", err)
	}
	s := &Sandbox{exe: exe, cfg: cfg}
	if cfg.User != "" {
		if err := s.resolveUser(cfg.User); err != nil {
			return nil, fmt.Errorf("sandbox.New: %w", err)
		}
	}
	var whys []string
	// A root agent contains only as root: a user namespace would map the
	// job to the host's uid 0, which owns most of the host's files.
	modes := []Mode{ModeUserNS}
	switch {
	case os.Geteuid() == 0:
		modes = []Mode{ModeRoot}
	case privileged():
		modes = []Mode{ModeRoot, ModeUserNS}
	}
	for _, m := range modes {
		steps := plan(m, cfg)
		if err := s.probe(m, steps, absOr(cfg.DataDir)); err != nil {
			whys = append(whys, string(m)+": "+err.Error())
			continue
		}
		s.mode, s.steps = m, steps
		return s, nil
	}
	s.why = strings.Join(whys, "; ") + " — enable unprivileged user namespaces (sysctl " +
		"user.max_user_namespaces > 0, kernel.unprivileged_userns_clone=1 where it exists), " +
		"run the agent as the systemd service (root), or have an admin set isolation: host on the context"
	if cfg.Log != nil {
		cfg.Log.Warn("sandbox: jobs of other actors cannot be contained and will be refused", "why", s.why)
	}
	return s, nil
}

func (s *Sandbox) resolveUser(name string) error {
	if os.Geteuid() != 0 {
		return fmt.Errorf("isolation user %q: the agent must run as root", name)
	}
	u, err := user.Lookup(name)
	if err != nil {
		return fmt.Errorf("isolation user: %w", err)
	}
	uid, err1 := strconv.ParseUint(u.Uid, 10, 32)
	gid, err2 := strconv.ParseUint(u.Gid, 10, 32)
	if err1 != nil || err2 != nil || uid == 0 {
		return fmt.Errorf("isolation user %q: uid %s gid %s: must be numeric and not root", name, u.Uid, u.Gid)
	}
	s.user, s.uid, s.gid = u, uint32(uid), uint32(gid)
	return nil
}

// probe runs the helper once with an empty job in mode m.
func (s *Sandbox) probe(m Mode, steps []Step, dir string) error {
	sp := Spec{Mode: m, UID: DefaultUIDBase, GID: DefaultUIDBase, Dir: dir, Steps: steps, Probe: true}
	if s.user != nil {
		sp.UID, sp.GID = s.uid, s.gid
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, s.exe)
	cmd.Args = []string{s.exe, initArg}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.Env = []string{"PATH=/usr/bin:/bin"}
	cmd.SysProcAttr = &syscall.SysProcAttr{}
	if err := s.setup(cmd, sp); err != nil {
		return err
	}
	if err := cmd.Run(); err != nil {
		if msg := strings.TrimSpace(stderr.String()); msg != "" {
			return fmt.Errorf("%v: %s", err, strings.TrimPrefix(msg, "hyphae: "))
		}
		return err
	}
	return nil
}

// Job is what Wrap needs to know of one job.
type Job struct {
	Dir     string // the job directory (absolute)
	Context uint64 // picks the uid in root mode
	NoNet   bool   // network none: a namespace with only loopback
}

// Wrap rewrites cmd (its Path, Args, Env and SysProcAttr already set) to
// run contained through the helper. cmd.SysProcAttr.Credential must be
// nil: the helper drops to the job's user itself.
func (s *Sandbox) Wrap(cmd *exec.Cmd, j Job) error {
	if s.mode == "" {
		return fmt.Errorf("%w: %s", ErrUnavailable, s.why)
	}
	s.mu.Lock()
	steps := s.steps
	s.mu.Unlock()
	sp := Spec{Mode: s.mode, Dir: absOr(j.Dir), Steps: steps, NoNet: j.NoNet, Program: cmd.Path}
	if uid, gid, ok := s.IDs(j.Context); ok {
		sp.UID, sp.GID = uint32(uid), uint32(gid)
	}
	cmd.Args = append([]string{s.exe, initArg}, cmd.Args...)
	cmd.Path = s.exe
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Credential = nil
	return s.setup(cmd, sp)
}

// setup adds the plan and the namespaces to cmd.
func (s *Sandbox) setup(cmd *exec.Cmd, sp Spec) error {
	b, err := json.Marshal(sp)
	if err != nil {
		return err
	}
	cmd.Env = append(cmd.Env[:len(cmd.Env):len(cmd.Env)], specEnv+"="+string(b))
	a := cmd.SysProcAttr
	a.Cloneflags |= syscall.CLONE_NEWNS | syscall.CLONE_NEWPID | syscall.CLONE_NEWIPC
	if sp.NoNet {
		a.Cloneflags |= syscall.CLONE_NEWNET
	}
	if sp.Mode == ModeUserNS {
		a.Cloneflags |= syscall.CLONE_NEWUSER
		a.UidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getuid(), Size: 1}}
		a.GidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getgid(), Size: 1}}
		a.GidMappingsEnableSetgroups = false
	}
	return nil
}

// privileged reports whether the agent, though not root, holds what the
// root mode needs (a service given AmbientCapabilities=): CAP_SYS_ADMIN,
// CAP_SETUID, CAP_SETGID, CAP_CHOWN and CAP_KILL in its effective set.
func privileged() bool {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return false
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "CapEff:"); ok {
			eff, err := strconv.ParseUint(strings.TrimSpace(v), 16, 64)
			need := uint64(1)<<unix.CAP_SYS_ADMIN | 1<<unix.CAP_SETUID | 1<<unix.CAP_SETGID |
				1<<unix.CAP_CHOWN | 1<<unix.CAP_KILL
			return err == nil && eff&need == need
		}
	}
	return false
}
