package conformance

import (
	"context"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// The hero cases of an operator's day (seed 004 Worker Failures, and the
// runner PRD's Redis AUTH and graceful shutdown): a Redis that needs a
// password, a Redis restarted under the worker, SIGTERM while a job runs.

// ownRedis starts a redis-server on a free port with extra arguments and
// returns its port and a function that kills it.
func ownRedis(t *testing.T, dir string, port string, extra ...string) func() {
	t.Helper()
	args := append([]string{"--port", port, "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"}, extra...)
	srv := startProc(t, dir, "redis", "redis-server", args...)
	t.Cleanup(func() { killGroup(srv) })
	if err := waitFor(func() bool { c, err := net.Dial("tcp", "127.0.0.1:"+port); ok(c); return err == nil }); err != nil {
		t.Fatal("redis-server did not answer")
	}
	return func() { killGroup(srv) }
}

// ownWorker is a hero worker of this test on a Redis it started itself.
func ownWorker(t *testing.T, url string) *heroWorker {
	t.Helper()
	if os.Getenv("CONFORMANCE_HERO_REDIS") != "" {
		t.Skip("needs a Redis and a worker this test starts")
	}
	w := &heroWorker{id: "w-" + uuid4()[:8], own: true, logDir: t.TempDir(), redis: url}
	w.c = heroClient(t, url)
	return w
}

// A Redis with requirepass: the worker given the password in its URL
// serves jobs as on an open one.
func TestHeroRedisAuth(t *testing.T) {
	dir := t.TempDir()
	port := freePort()
	ownRedis(t, dir, port, "--requirepass", "s3cret-conf")
	w := ownWorker(t, "redis://:s3cret-conf@127.0.0.1:"+port)
	w.start(t)
	id := uuid4()
	w.job(t, id, "echo authed")
	w.submit(t, id)
	if rep, hj := w.await(t, id); rep != "authed\n" || hj["status"] != "finished" {
		t.Fatalf("job on a Redis with a password: reply %q, job %v", rep, hj)
	}
}

// The Redis under a worker restarts (losing nothing the test needs: the
// next job is written after it is back): the worker reconnects and
// serves the next job.
func TestHeroRedisRestart(t *testing.T) {
	dir := t.TempDir()
	port := freePort()
	kill := ownRedis(t, dir, port)
	w := ownWorker(t, "redis://127.0.0.1:"+port)
	w.start(t)
	first := uuid4()
	w.job(t, first, "echo before")
	w.submit(t, first)
	if rep, _ := w.await(t, first); rep != "before\n" {
		t.Fatalf("before the restart: reply %q", rep)
	}
	kill()
	ownRedis(t, dir, port)
	second := uuid4()
	w.job(t, second, "echo after")
	w.submit(t, second)
	if rep, hj := w.await(t, second); rep != "after\n" || hj["status"] != "finished" {
		t.Fatalf("after the Redis restart: reply %q, job %v", rep, hj)
	}
}

// SIGTERM while a job runs: the worker takes no new job, lets the
// running one finish (its reply and status finished), and exits 0.
func TestHeroSigtermDuringJob(t *testing.T) {
	dir := t.TempDir()
	port := freePort()
	ownRedis(t, dir, port)
	w := ownWorker(t, "redis://127.0.0.1:"+port)
	w.start(t)
	gate := filepath.Join(t.TempDir(), "gate")
	id := uuid4()
	w.job(t, id, `while [ ! -e `+gate+` ]; do sleep 0.05; done; echo drained`)
	w.submit(t, id)
	eventually(t, "the job started", func() bool {
		return w.c.HGet(context.Background(), "hero:job:"+id, "status").Val() == "started"
	})
	if err := w.agent.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(gate, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if rep, hj := w.await(t, id); rep != "drained\n" || hj["status"] != "finished" {
		t.Fatalf("the job running at SIGTERM: reply %q, job %v", rep, hj)
	}
	done := make(chan error, 1)
	go func() { done <- w.agent.Wait() }()
	select {
	case err := <-done:
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			t.Fatalf("the agent exited %v after SIGTERM, want 0", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("the agent did not exit within a minute of SIGTERM")
	}
}
