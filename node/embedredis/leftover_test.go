package embedredis

import (
	"bufio"
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

func slogTo(b *syncBuffer) *slog.Logger {
	return slog.New(slog.NewTextHandler(b, nil))
}

// TestLeftoverIsShutDown: a redis-server that no agent owns but that still
// serves the data dir (as after a crash where Pdeathsig did not apply) is shut
// down gracefully — its last writes survive — and replaced by our child.
func TestLeftoverIsShutDown(t *testing.T) {
	needRedisServer(t)
	dir := t.TempDir()
	c := &child{dir: filepath.Join(dir, "redis")}
	c.sock, c.pidPath = filepath.Join(c.dir, socketName), filepath.Join(c.dir, pidName)
	if err := makePrivateDir(c.dir); err != nil {
		t.Fatal(err)
	}
	orphan := exec.Command("redis-server", childArgs(c, 16)...)
	if err := orphan.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { _ = orphan.Wait(); close(exited) }()
	t.Cleanup(func() { _ = orphan.Process.Kill(); <-exited })
	os.WriteFile(c.pidPath, []byte(strconv.Itoa(orphan.Process.Pid)), 0o600)
	waitPong(t, c.sock)
	if _, err := command(context.Background(), c.sock, "SET", "last", "write"); err != nil {
		t.Fatal(err)
	}

	s := startChildT(t, dir)
	select {
	case <-exited:
	case <-time.After(5 * time.Second):
		t.Fatal("leftover redis-server still runs")
	}
	if got := clientDB(t, s, 0).Get(ctxT(t), "last").Val(); got != "write" {
		t.Fatalf("leftover's last write = %q, want it kept", got)
	}
}

func waitPong(t *testing.T, sock string) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); {
		if line, ok := ping(context.Background(), sock); ok && line == "+PONG" {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("nothing answers PING on %s", sock)
}

// TestAgentKill9LeavesNoRedis runs an "agent" (this test binary) that starts
// the child, kills the agent with SIGKILL, and checks that redis-server dies
// too and that the next Start on the data dir copes with the stale files.
func TestAgentKill9LeavesNoRedis(t *testing.T) {
	needRedisServer(t)
	dir := t.TempDir()
	agent := exec.Command(os.Args[0], "-test.run=^TestHelperAgent$")
	agent.Env = append(os.Environ(), "EMBEDREDIS_HELPER_DIR="+dir)
	out, err := agent.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := agent.Start(); err != nil {
		t.Fatal(err)
	}
	pid := readHelperPid(t, out)
	if !isOurRedis(pid, filepath.Join(dir, "redis", socketName)) {
		t.Fatalf("helper's child %d is not a redis-server on the data dir", pid)
	}
	_ = agent.Process.Kill()
	_ = agent.Wait()
	for deadline := time.Now().Add(5 * time.Second); isOurRedis(pid, filepath.Join(dir, "redis", socketName)); {
		if time.Now().After(deadline) {
			t.Fatalf("redis-server %d still runs 5s after its agent was killed", pid)
		}
		time.Sleep(50 * time.Millisecond)
	}
	startChildT(t, dir)
}

func readHelperPid(t *testing.T, out interface{ Read([]byte) (int, error) }) int {
	t.Helper()
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "CHILDPID="); ok {
			pid, _ := strconv.Atoi(v)
			return pid
		}
	}
	t.Fatal("helper agent did not report its child's pid")
	return 0
}

// TestHelperAgent is the agent process of TestAgentKill9LeavesNoRedis.
func TestHelperAgent(t *testing.T) {
	dir := os.Getenv("EMBEDREDIS_HELPER_DIR")
	if dir == "" {
		t.Skip("helper process for TestAgentKill9LeavesNoRedis")
	}
	s, err := Start(context.Background(), Options{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	fmt.Printf("CHILDPID=%d\n", childPid(s))
	time.Sleep(time.Minute) // until killed
}
