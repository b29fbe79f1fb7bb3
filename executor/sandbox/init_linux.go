package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"syscall"

	"golang.org/x/sys/unix"
)

// init turns the process into a job's init when it was started by Wrap;
// otherwise it does nothing.
func init() {
	if len(os.Args) < 2 || os.Args[1] != initArg {
		return
	}
	raw, ok := os.LookupEnv(specEnv)
	if !ok {
		return
	}
	os.Exit(runInit(raw, os.Args[2:]))
}

// exitSetup is the helper's exit code when it could not contain the job;
// the agent reads the reason from stderr.
const exitSetup = 126

// runInit builds the job's view of the machine, drops privilege, runs
// argv as its only child and returns the exit code to leave with.
func runInit(raw string, argv []string) int {
	sp, err := decodeSpec(raw)
	if err != nil {
		return fail(err)
	}
	runtime.LockOSThread() // no_new_privs and the child's start happen on this thread
	if err := setupMounts(sp); err != nil {
		return fail(err)
	}
	if sp.NoNet {
		if err := loopbackUp(); err != nil {
			return fail(fmt.Errorf("bring up lo: %w", err))
		}
	}
	if err := dropPrivilege(sp); err != nil {
		return fail(err)
	}
	if sp.Probe { // the probe's job: a shell that exits, as the job's user
		sp.Program, argv = "/bin/sh", []string{"sh", "-c", "exit 0"}
		if _, err := os.Stat(sp.Program); err != nil {
			return 0 // no shell to try the job's user with: the setup worked
		}
	}
	return superviseChild(sp, argv)
}

func fail(err error) int {
	fmt.Fprintf(os.Stderr, "hyphae: cannot contain the job: %v\n", err)
	return exitSetup
}

// dropPrivilege prepares this thread, which starts the job, so that the
// job gains nothing: no ambient capabilities (an agent that is not root
// but holds capabilities, a service with AmbientCapabilities=, would pass
// them on across the job's setuid), and no_new_privs, so setuid programs
// and file capabilities give nothing either. The job's uid is set in the
// child itself (superviseChild): a setuid here would stop every thread.
func dropPrivilege(sp *Spec) error {
	if sp.Mode == ModeRoot {
		err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
		if err != nil && err != unix.EINVAL {
			return fmt.Errorf("clear ambient capabilities: %w", err)
		}
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("no_new_privs: %w", err)
	}
	return nil
}

// superviseChild starts the job's program, passes on the signals the
// helper gets, reaps every process that ends up as its child, and returns
// the program's exit code.
func superviseChild(sp *Spec, argv []string) int {
	dir := sp.Dir
	if sp.Probe {
		dir = "/" // the probe's directory is not the job's user's
	}
	cmd := &exec.Cmd{Path: sp.Program, Args: argv, Env: jobEnv(), Dir: dir,
		Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, SysProcAttr: &syscall.SysProcAttr{}}
	if sp.Mode == ModeRoot {
		// Set in the child between fork and exec: no supplementary groups,
		// the job's gid and uid; leaving uid 0 (or holding no ambient
		// capabilities) clears every capability at the exec.
		cmd.SysProcAttr.Credential = &syscall.Credential{Uid: sp.UID, Gid: sp.GID, Groups: []uint32{}}
	}
	if sp.Mode == ModeUserNS {
		// A nested user namespace: root there, but without capabilities
		// over the mount namespace, so the masks cannot be undone.
		cmd.SysProcAttr.Cloneflags = syscall.CLONE_NEWUSER
		cmd.SysProcAttr.UidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: 0, Size: 1}}
		cmd.SysProcAttr.GidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: 0, Size: 1}}
	}
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGQUIT,
		syscall.SIGUSR1, syscall.SIGUSR2)
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(os.Stderr, "hyphae: start %s: %v\n", sp.Program, err)
		return 127
	}
	pid := cmd.Process.Pid
	go func() {
		for s := range sigs {
			_ = syscall.Kill(pid, s.(syscall.Signal))
		}
	}()
	return reap(pid)
}

// reap waits for every child until pid has ended and returns its exit
// code; orphans reparented to this init are reaped on the way.
func reap(pid int) int {
	for {
		var ws syscall.WaitStatus
		got, err := syscall.Wait4(-1, &ws, 0, nil)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return exitSetup
		}
		if got != pid {
			continue
		}
		if ws.Signaled() {
			return 128 + int(ws.Signal())
		}
		return ws.ExitStatus()
	}
}

// jobEnv is the helper's environment without the plan.
func jobEnv() []string {
	env := os.Environ()
	out := env[:0]
	for _, kv := range env {
		if len(kv) > len(specEnv) && kv[:len(specEnv)+1] == specEnv+"=" {
			continue
		}
		out = append(out, kv)
	}
	return out
}
