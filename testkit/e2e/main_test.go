package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hyphae-run/hyphae/internal/poll"
	"github.com/hyphae-run/hyphae/testkit/gobuild"
	"github.com/hyphae-run/hyphae/testkit/testnet"
)

// bin is the hyphae binary built for this test run.
var bin string

func TestMain(m *testing.M) {
	if os.Getenv(rawEchoEnv) != "" { // BenchmarkCrossAgentProcesses's helper
		os.Exit(rawEcho())
	}
	dir, err := os.MkdirTemp("", "hyphae-e2e")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	bin = filepath.Join(dir, "hyphae")
	out, err := gobuild.Command("", "-o", bin, "github.com/hyphae-run/hyphae/cmd/hyphae").CombinedOutput()
	if err != nil {
		fmt.Fprintf(os.Stderr, "build hyphae: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// proc is a running `hyphae run`.
type proc struct {
	cmd  *exec.Cmd
	dir  string
	log  *syncBuf
	done chan error
}

// newDataDir runs `hyphae init` in a fresh short temp dir.
func newDataDir(t testing.TB) string {
	t.Helper()
	d, err := os.MkdirTemp("", "hy")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	dir := filepath.Join(d, "d")
	hy(t, "init", "--data-dir", dir)
	return dir
}

// startRun starts `hyphae run` (optionally under a prefix command such as
// `ip netns exec X`) and waits until its API answers. An agent on the host
// (no namespace prefix) gets testnet.OffFlags after args, and the test
// fails if it still reports mDNS or port mapping running.
func startRun(t testing.TB, dir string, prefix []string, args ...string) *proc {
	t.Helper()
	onHost := !testnet.IsNamespaced(prefix)
	if onHost {
		args = testnet.HostRunArgs(args...)
	}
	argv := append(append([]string{}, prefix...), bin, "run", "--data-dir", dir)
	argv = append(argv, args...)
	cmd := exec.Command(argv[0], argv[1:]...)
	p := &proc{cmd: cmd, dir: dir, log: &syncBuf{}, done: make(chan error, 1)}
	cmd.Stdout, cmd.Stderr = p.log, p.log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.done <- cmd.Wait() }()
	t.Cleanup(func() { p.kill() })
	eventually(t, 30*time.Second, "agent API on "+dir, func() bool {
		select {
		case err := <-p.done:
			p.done <- err
			t.Fatalf("hyphae run exited: %v\n%s", err, p.log)
		default:
		}
		_, _, err := hyTry("info", "--data-dir", dir)
		return err == nil
	})
	if onHost {
		guardAgent(t, bin, dir)
	}
	return p
}

// guardAgent fails t when the agent of binary b on dir, on the host,
// reports mDNS or port mapping running (`hyphae info --json`).
func guardAgent(t testing.TB, b, dir string) {
	t.Helper()
	var out, errOut bytes.Buffer
	cmd := exec.Command(b, "info", "--json", "--data-dir", dir)
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		t.Fatalf("hyphae info --json --data-dir %s: %v\n%s", dir, err, errOut.Bytes())
	}
	testnet.GuardInfo(t, "hyphae run --data-dir "+dir, out.Bytes())
}

// kill -9s the whole process group (agent and its redis-server child).
func (p *proc) kill() {
	if p.cmd.Process != nil {
		_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
		select {
		case err := <-p.done:
			p.done <- err // later waits see the exit too
		case <-time.After(10 * time.Second):
		}
	}
}

// wait returns the exit error once the process ends (or fails the test).
func (p *proc) wait(t testing.TB, d time.Duration) error {
	t.Helper()
	select {
	case err := <-p.done:
		p.done <- err
		return err
	case <-time.After(d):
		t.Fatalf("hyphae run did not exit within %v\n%s", d, p.log)
		return nil
	}
}

// hy runs a CLI command and fails the test on a non-zero exit.
func hy(t testing.TB, args ...string) string {
	t.Helper()
	out, errOut, err := hyTry(args...)
	if err != nil {
		t.Fatalf("hyphae %s: %v\nstdout: %s\nstderr: %s", strings.Join(args, " "), err, out, errOut)
	}
	return out
}

func hyTry(args ...string) (string, string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	return out.String(), errOut.String(), err
}

func exitCode(err error) int {
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode()
	}
	if err == nil {
		return 0
	}
	return -1
}

func decode(t testing.TB, s string, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(s), v); err != nil {
		t.Fatalf("decode %q: %v", s, err)
	}
}

var eventually = poll.Eventually
