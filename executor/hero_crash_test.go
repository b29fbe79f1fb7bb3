package executor_test

import (
	"context"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/hyphae-run/hyphae/context/store"
	"github.com/hyphae-run/hyphae/executor"
)

// heroChildEnv makes TestHeroChildWorker serve hero worker w1 until it is
// killed: the test binary re-executed as a worker process.
const heroChildEnv = "HYPHAE_TEST_HERO_CHILD"

// TestHeroChildWorker is not a test: it is the worker process that
// TestHeroWorkerKilled kills (skipped otherwise).
func TestHeroChildWorker(t *testing.T) {
	if os.Getenv(heroChildEnv) != "1" {
		t.Skip("the child worker of TestHeroWorkerKilled")
	}
	ctx := context.Background()
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	st, err := store.Open(ctx, os.Getenv("HYPHAE_TEST_REDIS"), log)
	if err != nil {
		t.Fatal(err)
	}
	r, err := executor.New(executor.Config{DataDir: os.Getenv("HYPHAE_TEST_DATA_DIR"), RunnerID: "runner-a",
		WorkerID: "w1", Concurrency: 2, Contexts: fixedContexts(1)}, parts(st), log)
	if err == nil {
		err = r.Start(ctx)
	}
	if err != nil {
		t.Fatal(err)
	}
	select {} // until killed
}

// startHeroChild runs TestHeroChildWorker in a child process.
func startHeroChild(t *testing.T, h *harness) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHeroChildWorker$")
	cmd.Env = append(os.Environ(), heroChildEnv+"=1", "HYPHAE_TEST_REDIS="+h.srv.URL, "HYPHAE_TEST_DATA_DIR="+h.dir)
	logf, err := os.Create(filepath.Join(t.TempDir(), "child.log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		logf.Close()
		if t.Failed() {
			b, _ := os.ReadFile(logf.Name())
			t.Logf("child worker log:\n%s", b)
		}
	})
	return cmd
}

// onceThenBlock blocks on its first run (recording its pid in
// <marks>/<name>.pid) and prints "again" on later runs.
func onceThenBlock(marks, name string) string {
	p := filepath.Join(marks, name)
	return `if [ ! -e ` + p + `.once ]; then touch ` + p + `.once; echo $$ > ` + p + `.tmp; mv ` + p + `.tmp ` + p +
		`.pid; while :; do sleep 1; done; fi; echo again`
}

// Seed 004 "Worker Failures": kill -9 of a worker mid-job, then a worker
// with the same id starts: the job with a retry left is requeued and runs
// again; the one without ends error.
func TestHeroWorkerKilled(t *testing.T) {
	h := newHarness(t)
	c := h.client(t, 0)
	marks := t.TempDir()
	child := startHeroChild(t, h)
	heroJob(t, c, "requeued", onceThenBlock(marks, "r"), "retries", "1")
	heroJob(t, c, "spent", onceThenBlock(marks, "s"))
	heroPush(t, c, "requeued", "spent")
	for _, name := range []string{"r", "s"} {
		killOnCleanup(t, readPID(t, filepath.Join(marks, name+".pid")))
	}
	if err := child.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = child.Wait()
	if st := c.HGet(context.Background(), "hero:job:requeued", "status").Val(); st != "started" {
		t.Fatalf("status after the kill: %q", st)
	}

	cfg := h.config()
	cfg.WorkerID = "w1"
	h.start(t, cfg)
	if rep, hj := heroAwait(t, c, "requeued"); rep != "again\n" || hj["status"] != "finished" || hj["attempts"] != "2" {
		t.Fatalf("requeued: reply %q, hash %v", rep, hj)
	}
	rep, hj := heroAwait(t, c, "spent")
	if hj["status"] != "error" || hj["error"] != "worker died while the job ran (no retries left)" || rep != "error: "+hj["error"] {
		t.Fatalf("spent: reply %q, hash %v", rep, hj)
	}
	waitFor(t, "an empty processing list", func() bool {
		return c.LLen(context.Background(), "hero:processing:w1").Val() == 0
	})
}
