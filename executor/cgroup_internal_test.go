//go:build linux

package executor

import (
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The cgroups found on the kinds of machines the agent runs on, from
// their /proc/self/mountinfo and /proc/self/cgroup.
func TestCgroupHostDetection(t *testing.T) {
	cases := []struct {
		name, mountinfo, cgroup string
		v2Own, why              string
		memory, cpu             string
	}{
		{name: "hybrid: v1 controllers, an empty cgroup2 at unified",
			mountinfo: `31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755
32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu
35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory
40 31 0:37 / /sys/fs/cgroup/systemd rw,relatime - cgroup cgroup rw,name=systemd
41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw`,
			cgroup: "9:name=systemd:/\n4:memory:/process_api/f23e\n1:cpu:/\n0::/\n",
			v2Own:  "/sys/fs/cgroup/unified",
			memory: "/sys/fs/cgroup/memory/process_api/f23e", cpu: "/sys/fs/cgroup/cpu"},
		{name: "pure cgroup2 under systemd",
			mountinfo: "30 23 0:26 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:4 - cgroup2 cgroup2 rw,nsdelegate,memory_recursiveprot\n",
			cgroup:    "0::/system.slice/hyphae.service\n",
			v2Own:     "/sys/fs/cgroup/system.slice/hyphae.service"},
		{name: "cgroup v1 only, cpu and cpuacct mounted together",
			mountinfo: "33 25 0:29 / /sys/fs/cgroup/cpu,cpuacct rw,nosuid shared:9 - cgroup cgroup rw,cpu,cpuacct\n",
			cgroup:    "3:cpu,cpuacct:/user.slice\n",
			why:       "no cgroup2 hierarchy is mounted", cpu: "/sys/fs/cgroup/cpu,cpuacct/user.slice"},
		{name: "a container's own subtree mounted (no cgroup namespace)",
			mountinfo: "700 690 0:26 /docker/abc /sys/fs/cgroup ro,nosuid - cgroup2 cgroup2 rw\n",
			cgroup:    "0::/docker/abc/inner\n",
			v2Own:     "/sys/fs/cgroup/inner"},
		{name: "own cgroup outside the mounted subtree",
			mountinfo: "700 690 0:26 /docker/abc /sys/fs/cgroup ro,nosuid - cgroup2 cgroup2 rw\n",
			cgroup:    "0::/docker/other\n",
			why:       "the agent's cgroup2 is not visible under any cgroup2 mount"},
		{name: "a mount point with a space",
			mountinfo: `41 31 0:38 / /mnt/my\040cgroup rw - cgroup2 cgroup2 rw`,
			cgroup:    "0::/a\n",
			v2Own:     "/mnt/my cgroup/a"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := hostFrom(c.mountinfo, c.cgroup)
			if h.v2Own != c.v2Own || h.why != c.why ||
				h.v1["memory"] != c.memory || h.v1["cpu"] != c.cpu {
				t.Fatalf("got %+v", h)
			}
		})
	}
}

// A job's limits become the values the kernel takes.
func TestLimitValues(t *testing.T) {
	for cores, want := range map[float64]int64{0.5: 50000, 2: 200000, 0.01: 1000, 0.001: 1000, 1e300: 1 << 20 * cpuPeriod} {
		if got := cpuQuota(cores); got != want {
			t.Errorf("cpuQuota(%g) = %d, want %d", cores, got, want)
		}
	}
	if got := memoryBytes(50); got != "52428800" {
		t.Errorf("memoryBytes(50) = %s", got)
	}
	if got := memoryBytes(1 << 62); strings.HasPrefix(got, "-") {
		t.Errorf("memoryBytes overflowed: %s", got)
	}
}

// Runners with the same id but different data dirs (tests, agents named
// alike) get different cgroups; a default id, which holds the data dir's
// hash already, is used as it is.
func TestRunnerCgroupName(t *testing.T) {
	a := runnerCgroupName(Config{RunnerID: "runner-a", DataDir: "/srv/a"})
	b := runnerCgroupName(Config{RunnerID: "runner-a", DataDir: "/srv/b"})
	if a == b || !strings.HasPrefix(a, "hyphae-runner-a-") {
		t.Fatalf("names %q and %q", a, b)
	}
	def := Config{DataDir: "/srv/a"}.withDefaults()
	if got := runnerCgroupName(def); got != "hyphae-"+safeName(def.RunnerID) {
		t.Fatalf("default id gives %q", got)
	}
	if got := jobCgroupName(3, "/d/contexts/3/jobs/7-42-2"); got != "job-3-7-42-2" {
		t.Fatalf("job cgroup %q", got)
	}
}

func TestIsolationString(t *testing.T) {
	for want, iso := range map[string]Isolation{
		"process groups: no cgroup2 hierarchy is mounted": {Note: "no cgroup2 hierarchy is mounted"},
		"cgroup2 at /cg/hyphae-x (kill: cgroup.kill), limits: memory, cpu (cgroup v1)": {
			Cgroup: "/cg/hyphae-x", Kill: "cgroup.kill", Limits: []string{"memory", "cpu"}, LimitsVia: "cgroup v1"},
		"cgroup2 at /cg/hyphae-x (kill: freeze+kill), limits: none; memory_mb not enforced: no memory controller": {
			Cgroup: "/cg/hyphae-x", Kill: "freeze+kill", Note: "memory_mb not enforced: no memory controller"},
	} {
		if got := iso.String(); got != want {
			t.Errorf("got  %q\nwant %q", got, want)
		}
	}
}

// Only the agent and its children are moved out of its cgroup.
func TestDescendsFrom(t *testing.T) {
	self := os.Getpid()
	cmd := exec.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	if !descendsFrom(self, self) || !descendsFrom(cmd.Process.Pid, self) {
		t.Fatal("the agent or its child not recognised")
	}
	if descendsFrom(1, self) || descendsFrom(os.Getppid(), self) {
		t.Fatal("init or the agent's parent taken for the agent's")
	}
}

// On kernels without cgroup.kill (before 5.14) or clone3 into a cgroup
// (before 5.7, or clone3 refused by seccomp) a job still starts inside its
// cgroup (through the gate) and is killed whole (freeze, then SIGKILL each).
func TestJobCgroupOnOlderKernels(t *testing.T) {
	cfg := Config{DataDir: t.TempDir(), RunnerID: "old-kernel"}.withDefaults()
	c, iso := setupCgroups(cfg, slog.New(slog.DiscardHandler))
	if c == nil {
		t.Skipf("no cgroups here: %s", iso)
	}
	t.Cleanup(c.remove)
	c.kill, c.clone = false, false
	j, _, err := c.newJob("job-1-1-1-1", jobLimits{})
	if err != nil {
		t.Fatal(err)
	}
	pidFile := filepath.Join(t.TempDir(), "child")
	cmd := exec.Command("sh", "-c", `setsid sh -c 'echo $$ > `+pidFile+`; exec sleep 300' & sleep 300`)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := start(cmd, j); err != nil {
		t.Fatal(err)
	}
	var child int
	deadline := time.Now().Add(30 * time.Second)
	for child == 0 && time.Now().Before(deadline) {
		b, _ := os.ReadFile(pidFile)
		child, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		time.Sleep(10 * time.Millisecond)
	}
	if procs := j.procs(); !slices.Contains(procs, cmd.Process.Pid) || !slices.Contains(procs, child) {
		t.Fatalf("cgroup holds %v, want the job %d and its setsid child %d", procs, cmd.Process.Pid, child)
	}
	j.kill()
	_ = cmd.Wait()
	j.finish()
	if _, err := os.Stat(j.dir); !os.IsNotExist(err) {
		t.Fatalf("job cgroup left: %v", err)
	}
	for !exited(child) {
		if time.Now().After(deadline) {
			_ = syscall.Kill(child, syscall.SIGKILL)
			t.Fatalf("the setsid child %d survived", child)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// exited reports whether pid is gone or a zombie.
func exited(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	i := strings.LastIndexByte(string(b), ')')
	return err != nil || i < 0 || strings.HasPrefix(string(b[i+1:]), " Z")
}
