package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// An agent started with a relative --data-dir runs jobs: the data dir is
// made absolute once, so a job's script path is not resolved a second time
// from the job's own directory (every job failed, its path doubled).
func TestRelativeDataDirRunsJobs(t *testing.T) {
	t.Parallel()
	work, err := os.MkdirTemp("", "hyrel")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(work) })
	in := func(args ...string) *exec.Cmd {
		c := exec.Command(bin, args...)
		c.Dir = work
		return c
	}
	if out, err := in("init", "--data-dir", "d").CombinedOutput(); err != nil {
		t.Fatalf("init: %v\n%s", err, out)
	}
	run := in(append([]string{"run", "--data-dir", "d"}, localArgs()...)...)
	log := &syncBuf{}
	run.Stdout, run.Stderr = log, log
	run.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := run.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Kill(-run.Process.Pid, syscall.SIGKILL); _ = run.Wait() })
	eventually(t, 30*time.Second, "the agent on the relative data dir", func() bool {
		return in("info", "--data-dir", "d").Run() == nil
	})
	guardAgent(t, bin, filepath.Join(work, "d"))
	if out, err := in("context", "create", "--id", "1", "--data-dir", "d").CombinedOutput(); err != nil {
		t.Fatalf("context create: %v\n%s", err, out)
	}
	var j jobOut
	out, err := in("job", "run", "--context", "1", "--type", "sh", "--script", `echo "ok=1" >> "$HYPHAE_RESULT"`,
		"--wait", "--json", "--data-dir", "d").Output()
	if err != nil {
		t.Fatalf("job run: %v\n%s\nagent log:\n%s", err, out, log.String())
	}
	decode(t, string(out), &j)
	if j.Status != "finished" || j.Result["ok"] != "1" {
		t.Fatalf("job on a relative data dir = %+v", j)
	}
	var info struct {
		DataDir string `json:"data_dir"`
	}
	infoOut, _ := in("info", "--json", "--data-dir", "d").Output()
	decode(t, string(infoOut), &info)
	if info.DataDir != filepath.Join(work, "d") {
		t.Errorf("info data_dir = %q, want %q", info.DataDir, filepath.Join(work, "d"))
	}
}
