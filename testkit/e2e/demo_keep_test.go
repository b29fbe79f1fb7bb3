package e2e

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// syncBuf is a bytes.Buffer a process writes while the test reads it.
type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// `hyphae demo --keep` runs until Ctrl-C; then the agents stop, the temp
// dir it made is removed (it was left behind) and it says so, exiting 0.
func TestDemoKeepRemovesItsTempDirOnCtrlC(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	cmd := exec.Command(bin, "demo", "--keep")
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	out := &syncBuf{}
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) })
	eventually(t, 2*time.Minute, "the demo to keep its agents running", func() bool {
		return strings.Contains(out.String(), "keep running")
	})
	dirs, _ := filepath.Glob(filepath.Join(tmp, "hyphae-demo-*"))
	if len(dirs) != 1 || !strings.Contains(out.String(), dirs[0]) {
		t.Fatalf("demo dirs %v; the demo should say where its one dir is:\n%s", dirs, out)
	}
	socks, _ := filepath.Glob(filepath.Join(dirs[0], "*", "hyphae.sock"))
	if len(socks) == 0 {
		t.Fatalf("no agent socket in %s", dirs[0])
	}
	for _, s := range socks { // the demo's agents run on the host: no mDNS, no port mapping
		guardAgent(t, bin, filepath.Dir(s))
	}
	// Ctrl-C in a terminal signals the whole foreground process group.
	if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("demo --keep after Ctrl-C: %v\n%s", err, out)
		}
	case <-time.After(time.Minute):
		t.Fatalf("demo --keep did not stop within a minute of Ctrl-C\n%s", out)
	}
	if _, err := os.Stat(dirs[0]); !os.IsNotExist(err) {
		t.Fatalf("demo --keep left %s after Ctrl-C (stat: %v)\n%s", dirs[0], err, out)
	}
	if !strings.Contains(out.String(), "removing "+dirs[0]) {
		t.Errorf("the demo did not say it removes %s:\n%s", dirs[0], out)
	}
}
