package executor_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hyphae-run/hyphae/executor"
)

// startContained starts a runner and skips the test unless its jobs run in
// cgroups (root, or a delegated cgroup2 subtree).
func startContained(t *testing.T, h *harness) *executor.Runner {
	t.Helper()
	r := h.start(t, h.config())
	iso := r.Isolation()
	if !iso.Cgroups() {
		t.Skipf("jobs run in process groups here, not cgroups: %s", iso)
	}
	t.Logf("isolation: %s", iso)
	return r
}

// escapeScript starts a child that leaves the job's process group and
// session (setsid), records both pids in marks, and waits.
func escapeScript(marks string) string {
	return `echo $$ > ` + marks + `/main.tmp; mv ` + marks + `/main.tmp ` + marks + `/main
setsid sh -c 'trap "" TERM; echo $$ > ` + marks + `/child.tmp; mv ` + marks + `/child.tmp ` + marks + `/child; exec sleep 300' &
sleep 300`
}

// escapedChild waits for the job of escapeScript to run and returns the
// escaped child's pid, after checking that it did leave the job's process
// group and that it is in the job's cgroup.
func escapedChild(t *testing.T, marks, cgroupName string) int {
	t.Helper()
	main, child := readPID(t, filepath.Join(marks, "main")), readPID(t, filepath.Join(marks, "child"))
	t.Cleanup(func() { _ = syscall.Kill(child, syscall.SIGKILL) }) // old code leaves it running
	waitFor(t, "the child to have called setsid", func() bool {
		pg, err := syscall.Getpgid(child)
		return err == nil && pg == child
	})
	if pg, _ := syscall.Getpgid(main); pg == child {
		t.Fatalf("the child %d is in the job's process group %d", child, pg)
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(child) + "/cgroup")
	if err != nil || !strings.Contains(string(b), "/"+cgroupName+"\n") {
		t.Fatalf("the escaped child's cgroups do not name %s: %q %v", cgroupName, b, err)
	}
	return child
}

// requireCgroupRemoved asserts the job's cgroup is removed by the time it ended.
func requireCgroupRemoved(t *testing.T, r *executor.Runner, name string) {
	t.Helper()
	if _, err := os.Stat(filepath.Join(r.Isolation().Cgroup, name)); !os.IsNotExist(err) {
		t.Fatalf("the job's cgroup %s is still there after it ended (%v)", name, err)
	}
}

// A child that calls setsid leaves the job's process group, so killing the
// group missed it; with a cgroup per job the timeout kills it too, and the
// job's cgroup is removed when it ends.
func TestTimeoutKillsSetsidChild(t *testing.T) {
	h := newHarness(t)
	r := startContained(t, h)
	c := h.client(t, 1)
	marks := t.TempDir()
	key := submit(t, c, 1, 1, "sh", escapeScript(marks), "timeout", 1)
	child := escapedChild(t, marks, "job-1-1-1-1")
	got := waitEnd(t, c, key)
	if got["status"] != "error" || got["error"] != "timeout after 1s" {
		t.Fatalf("status %q error %q", got["status"], got["error"])
	}
	waitFor(t, "the setsid child to die", func() bool { return processGone(child) })
	requireCgroupRemoved(t, r, "job-1-1-1-1")
}

// Stop kills a job's setsid child as well, and removes the job's cgroup.
func TestStopKillsSetsidChild(t *testing.T) {
	h := newHarness(t)
	r := startContained(t, h)
	c := h.client(t, 1)
	marks := t.TempDir()
	key := submit(t, c, 1, 2, "sh", escapeScript(marks))
	child := escapedChild(t, marks, "job-1-1-2-1")
	if err := r.Stop(context.Background(), 1, key); err != nil {
		t.Fatal(err)
	}
	got := waitEnd(t, c, key)
	if got["status"] != "error" || got["error"] != "stopped" {
		t.Fatalf("status %q error %q", got["status"], got["error"])
	}
	waitFor(t, "the setsid child to die", func() bool { return processGone(child) })
	requireCgroupRemoved(t, r, "job-1-1-2-1")
}

// A daemon a job leaves behind when it finishes is killed with the job's
// cgroup: nothing of a finished job runs on.
func TestFinishedJobLeavesNoDaemon(t *testing.T) {
	h := newHarness(t)
	r := startContained(t, h)
	c := h.client(t, 1)
	marks := t.TempDir()
	script := `setsid sh -c 'echo $$ > ` + marks + `/d.tmp; mv ` + marks + `/d.tmp ` + marks + `/d; exec sleep 300' > /dev/null 2>&1 &
while [ ! -e ` + marks + `/d ]; do sleep 0.01; done`
	got := waitEnd(t, c, submit(t, c, 1, 3, "sh", script))
	if got["status"] != "finished" {
		t.Fatalf("hash %v", got)
	}
	daemon := readPID(t, filepath.Join(marks, "d"))
	t.Cleanup(func() { _ = syscall.Kill(daemon, syscall.SIGKILL) })
	waitFor(t, "the daemon to die", func() bool { return processGone(daemon) })
	requireCgroupRemoved(t, r, "job-1-1-3-1")
}

// kill -9 of a runner mid-job leaves the job's setsid child running (no
// process group reaches it); the restarted runner kills it with what else
// its previous run left in its cgroups, and runs the job again.
func TestKill9RestartKillsSetsidChild(t *testing.T) {
	h := newHarness(t)
	c := h.client(t, 1)
	marks := t.TempDir()
	child := startChild(t, h, "runner-a", 30*time.Second)
	script := `if [ "$HYPHAE_ATTEMPT" = 1 ]; then ` + escapeScript(marks) + `; fi`
	key := submit(t, c, 1, 9, "sh", script, "retries", 1)
	escaped := readPID(t, filepath.Join(marks, "child"))
	t.Cleanup(func() { _ = syscall.Kill(escaped, syscall.SIGKILL) })
	if err := child.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = child.Wait()
	if processGone(escaped) {
		t.Fatal("the setsid child died with its runner; nothing to test")
	}
	startContained(t, h) // same RunnerID, same data dir
	waitFor(t, "the orphan's setsid child to die", func() bool { return processGone(escaped) })
	if got := waitEnd(t, c, key); got["status"] != "finished" || got["attempt"] != "2" {
		t.Fatalf("hash %v", got)
	}
}

// A job over its memory_mb is killed by the kernel and ends error with a
// reason that says so.
func TestMemoryLimitKillsJob(t *testing.T) {
	h := newHarness(t)
	r := startContained(t, h)
	if !slices.Contains(r.Isolation().Limits, "memory") {
		t.Skipf("memory limits are not enforced here: %s", r.Isolation())
	}
	c := h.client(t, 1)
	script := "x = b'x' * (200 << 20)\nprint('allocated', len(x))\n"
	got := waitEnd(t, c, submit(t, c, 1, 4, "python", script, "memory_mb", 50))
	if got["status"] != "error" || !strings.Contains(got["error"], "out of memory") ||
		!strings.Contains(got["error"], "memory_mb 50") {
		t.Fatalf("status %q error %q", got["status"], got["error"])
	}
	if strings.Contains(resultOf(t, got)["stdout"], "allocated") {
		t.Fatal("the job allocated 200 MB under memory_mb 50")
	}
	requireCgroupRemoved(t, r, "job-1-1-4-1")

	// The same job with room enough finishes.
	got = waitEnd(t, c, submit(t, c, 1, 5, "python", script, "memory_mb", 400))
	if got["status"] != "finished" {
		t.Fatalf("with memory_mb 400: %v", got)
	}
}

// Under a memory limit the kernel may kill a child of the job's shell
// rather than the shell: the job still ends error, saying why.
func TestMemoryLimitKillsChildOfShell(t *testing.T) {
	h := newHarness(t)
	r := startContained(t, h)
	if !slices.Contains(r.Isolation().Limits, "memory") {
		t.Skipf("memory limits are not enforced here: %s", r.Isolation())
	}
	c := h.client(t, 1)
	script := `python3 -c "x = b'x' * (200 << 20); print('allocated')"`
	got := waitEnd(t, c, submit(t, c, 1, 8, "sh", script, "memory_mb", 50))
	if got["status"] != "error" || !strings.Contains(got["error"], "out of memory") ||
		!strings.Contains(got["error"], "memory_mb 50") {
		t.Fatalf("status %q error %q", got["status"], got["error"])
	}
}

// A job's cpu limit is the CPU time its cgroup may use per period.
func TestCPULimitApplied(t *testing.T) {
	h := newHarness(t)
	r := startContained(t, h)
	if !slices.Contains(r.Isolation().Limits, "cpu") {
		t.Skipf("cpu limits are not enforced here: %s", r.Isolation())
	}
	c := h.client(t, 1)
	marks := t.TempDir()
	key := submit(t, c, 1, 6, "sh", `echo $$ > `+marks+`/pid.tmp; mv `+marks+`/pid.tmp `+marks+`/pid; sleep 300`, "cpu", "0.5")
	pid := readPID(t, filepath.Join(marks, "pid"))
	if q := cpuQuotaOf(t, pid); q != "50000 100000" {
		t.Fatalf("the job's CPU quota is %q, want 50 ms per 100 ms", q)
	}
	if err := r.Stop(context.Background(), 1, key); err != nil {
		t.Fatal(err)
	}
	waitEnd(t, c, key)
}

// Where limits cannot be enforced (here: cgroups turned off) a job that
// asks for them runs all the same, as Nomad's raw_exec does, and its log
// and result say that the limits were not enforced.
func TestLimitsNotEnforcedRunWithWarning(t *testing.T) {
	h := newHarness(t)
	cfg := h.config()
	cfg.NoCgroups = true
	r := h.start(t, cfg)
	if iso := r.Isolation(); iso.Cgroups() || iso.String() != "process groups: cgroups turned off in the configuration" {
		t.Fatalf("isolation %q", iso)
	}
	c := h.client(t, 1)
	got := waitEnd(t, c, submit(t, c, 1, 7, "sh", "echo ran", "memory_mb", 50, "cpu", "0.5"))
	if got["status"] != "finished" {
		t.Fatalf("hash %v", got)
	}
	warn := resultOf(t, got)["limit_warnings"]
	for _, want := range []string{"memory_mb 50 not enforced", "cpu 0.5 not enforced", "cgroups turned off"} {
		if !strings.Contains(warn, want) {
			t.Fatalf("limit_warnings %q lacks %q", warn, want)
		}
	}
	logs := strings.Join(mustLRange(t, c, "logs:job:1:7"), "\n")
	if !strings.Contains(logs, "[hyphae] warning: memory_mb 50 not enforced") {
		t.Fatalf("logs lack the warning:\n%s", logs)
	}
}

// cpuQuotaOf reads the CPU quota of pid's cgroup as "quota period" (µs),
// from cgroup2's cpu.max or cgroup v1's cpu.cfs_*_us.
func cpuQuotaOf(t *testing.T, pid int) string {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cgroup")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		parts := strings.SplitN(line, ":", 3)
		ctls := strings.Split(parts[1], ",")
		switch {
		case slices.Contains(ctls, "cpu"):
			dir := filepath.Join(cgroupMount(t, "cpu"), parts[2])
			return readTrim(t, dir, "cpu.cfs_quota_us") + " " + readTrim(t, dir, "cpu.cfs_period_us")
		case parts[0] == "0":
			if q, err := os.ReadFile(filepath.Join(cgroupMount(t, ""), parts[2], "cpu.max")); err == nil {
				return strings.TrimSpace(string(q))
			}
		}
	}
	t.Fatalf("no CPU quota found for the cgroups of %d: %s", pid, b)
	return ""
}

// cgroupMount is where the v1 hierarchy of controller ctl, or cgroup2 for
// "", is mounted (whole hierarchies only).
func cgroupMount(t *testing.T, ctl string) string {
	t.Helper()
	b, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		pre, post, _ := strings.Cut(line, " - ")
		f, g := strings.Fields(pre), strings.Fields(post)
		if len(f) < 5 || len(g) < 3 || f[3] != "/" {
			continue
		}
		if (ctl == "" && g[0] == "cgroup2") || (g[0] == "cgroup" && slices.Contains(strings.Split(g[2], ","), ctl)) {
			return f[4]
		}
	}
	t.Fatalf("no cgroup mount for %q", ctl)
	return ""
}

func readTrim(t *testing.T, dir, file string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, file))
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}
