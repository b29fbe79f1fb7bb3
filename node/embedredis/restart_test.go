package embedredis

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// seen is an Event with what Healthy answered while it was being reported.
type seen struct {
	Event
	healthy bool
}

// startWatched starts a child whose events arrive on the returned channel.
func startWatched(t *testing.T, opts Options) (*Server, <-chan seen) {
	t.Helper()
	needRedisServer(t)
	events := make(chan seen, 32)
	var sp atomic.Pointer[Server]
	opts.OnEvent = func(e Event) { events <- seen{e, sp.Load().Healthy()} }
	if opts.Log == nil {
		opts.Log = testLog(t)
	}
	s := startT(t, opts)
	sp.Store(s)
	return s, events
}

// nextEvent waits for the next event and checks its state.
func nextEvent(t *testing.T, events <-chan seen, want State) seen {
	t.Helper()
	select {
	case e := <-events:
		if e.State != want {
			t.Fatalf("event %q (err %v), want %q", e.State, e.Err, want)
		}
		return e
	case <-time.After(30 * time.Second):
		t.Fatalf("no %q event within 30s", want)
	}
	return seen{}
}

// kill9 kills the current redis-server of s with SIGKILL, as an operator
// or the OOM killer would, and returns its pid.
func kill9(t *testing.T, s *Server) int {
	t.Helper()
	pid := childPid(s)
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatalf("kill -9 %d: %v", pid, err)
	}
	return pid
}

// waitInAOF polls until value is written to the append-only files of
// dataDir, so that a kill -9 cannot lose it.
func waitInAOF(t *testing.T, dataDir, value string) {
	t.Helper()
	dir := filepath.Join(dataDir, "redis", "appendonlydir")
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); {
		files, _ := filepath.Glob(filepath.Join(dir, "*.aof"))
		for _, f := range files {
			if b, err := os.ReadFile(f); err == nil && bytes.Contains(b, []byte(value)) {
				return
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("%q not in the AOF under %s", value, dir)
}

func TestKilledChildIsRestartedWithItsData(t *testing.T) {
	dir := t.TempDir()
	logs := &syncBuffer{}
	s, events := startWatched(t, Options{DataDir: dir, Log: slogTo(logs)})
	ctx := ctxT(t)
	c := clientDB(t, s, 7)
	if err := c.HSet(ctx, "job:1:1", "status", "finished-before-kill").Err(); err != nil {
		t.Fatal(err)
	}
	waitInAOF(t, dir, "finished-before-kill")

	old := kill9(t, s)
	if e := nextEvent(t, events, StateDown); e.healthy || !errors.Is(e.Err, ErrDied) {
		t.Fatalf("down event: healthy %v err %v, want unhealthy and ErrDied", e.healthy, e.Err)
	}
	if e := nextEvent(t, events, StateUp); !e.healthy || e.Err != nil {
		t.Fatalf("up event: healthy %v err %v, want healthy and no error", e.healthy, e.Err)
	}
	if pid := childPid(s); pid == old || !s.Healthy() {
		t.Fatalf("after the restart pid %d (killed %d), Healthy %v", pid, old, s.Healthy())
	}
	if got := c.HGet(ctx, "job:1:1", "status").Val(); got != "finished-before-kill" {
		t.Fatalf("after the restart job status = %q, want the value written before the kill", got)
	}
	select {
	case <-s.Done():
		t.Fatalf("Done closed although the child came back; Err %v", s.Err())
	default:
	}
	if !strings.Contains(logs.String(), "level=ERROR") {
		t.Fatalf("no ERROR log for the dead child; logs:\n%s", logs)
	}
}

// brokenAfterStart puts a redis-server on PATH that runs the real one until
// the returned func is called, and from then on fails at once, quoting why.
func brokenAfterStart(t *testing.T) (breakIt func()) {
	t.Helper()
	needRedisServer(t)
	real, err := exec.LookPath("redis-server")
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	marker := filepath.Join(bin, "broken")
	script := "#!/bin/sh\nif [ -e " + marker + " ]; then\n" +
		"  echo 'FATAL: this redis-server was broken by the test' >&2\n  exit 1\nfi\n" +
		"exec " + real + " \"$@\"\n"
	if err := os.WriteFile(filepath.Join(bin, "redis-server"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin)
	return func() {
		if err := os.WriteFile(marker, nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

func TestChildThatCannotComeBackFails(t *testing.T) {
	breakIt := brokenAfterStart(t)
	s, events := startWatched(t, Options{DataDir: t.TempDir(),
		Restart: RestartPolicy{Attempts: 2, FirstDelay: time.Millisecond}})
	breakIt()
	kill9(t, s)
	nextEvent(t, events, StateDown)
	failed := nextEvent(t, events, StateFailed)
	select {
	case <-s.Failed():
	default:
		t.Fatal("Failed not closed with the failed event")
	}
	err := s.Err()
	if !errors.Is(err, ErrDied) || failed.Err != err || s.Healthy() {
		t.Fatalf("Err %v, event err %v, Healthy %v: want the same ErrDied error and unhealthy",
			err, failed.Err, s.Healthy())
	}
	for _, want := range []string{"2 restarts failed", "broken by the test"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Err %q does not say %q", err, want)
		}
	}
	shutdownT(t, s)
	if s.Err() != err {
		t.Fatalf("Err after Shutdown = %v, want the failure kept", s.Err())
	}
}

func TestRestartsOffFailsAtFirstDeath(t *testing.T) {
	s, events := startWatched(t, Options{DataDir: t.TempDir(), Restart: RestartPolicy{Attempts: -1}})
	kill9(t, s)
	nextEvent(t, events, StateDown)
	nextEvent(t, events, StateFailed)
	if err := s.Err(); !errors.Is(err, ErrDied) || !strings.Contains(err.Error(), "restarts are off") {
		t.Fatalf("Err = %v, want ErrDied saying restarts are off", err)
	}
}

// TestChildDyingRightAfterEachRestartFails: deaths soon after a restart
// count against one outage, so a child that keeps dying is not restarted
// forever.
func TestChildDyingRightAfterEachRestartFails(t *testing.T) {
	s, events := startWatched(t, Options{DataDir: t.TempDir(),
		Restart: RestartPolicy{Attempts: 2, FirstDelay: time.Millisecond}})
	for range 2 {
		kill9(t, s)
		nextEvent(t, events, StateDown)
		nextEvent(t, events, StateUp)
	}
	kill9(t, s)
	nextEvent(t, events, StateDown)
	nextEvent(t, events, StateFailed)
	if err := s.Err(); !strings.Contains(err.Error(), "each of its 2 restarts") {
		t.Fatalf("Err = %v, want it to say the child died after each restart", err)
	}
}

// TestShutdownDuringBackoffDoesNotRestart: Shutdown while the restart waits
// returns at once and nothing is started again.
func TestShutdownDuringBackoffDoesNotRestart(t *testing.T) {
	dir := t.TempDir()
	s, events := startWatched(t, Options{DataDir: dir, Restart: RestartPolicy{FirstDelay: time.Hour}})
	kill9(t, s)
	nextEvent(t, events, StateDown)
	shutdownWithin(t, s)
	assertStopped(t, s, dir)
	select {
	case e := <-events:
		t.Fatalf("event %q after Shutdown", e.State)
	default:
	}
}

// TestShutdownDuringRestartAttempt: Shutdown while a restarted child has not
// answered yet ends that child too.
func TestShutdownDuringRestartAttempt(t *testing.T) {
	needRedisServer(t)
	bin := t.TempDir()
	marker := filepath.Join(bin, "hang")
	real, _ := exec.LookPath("redis-server")
	script := "#!/bin/sh\nif [ -e " + marker + " ]; then exec sleep 600; fi\nexec " + real + " \"$@\"\n"
	if err := os.WriteFile(filepath.Join(bin, "redis-server"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+":"+os.Getenv("PATH")) // sleep is still found
	dir := t.TempDir()
	s, events := startWatched(t, Options{DataDir: dir, Restart: RestartPolicy{FirstDelay: time.Millisecond}})
	if err := os.WriteFile(marker, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	old := kill9(t, s)
	nextEvent(t, events, StateDown)
	var hung int
	for deadline := time.Now().Add(10 * time.Second); hung == 0 || hung == old; hung = childPid(s) {
		if time.Now().After(deadline) {
			t.Fatal("no restart attempt began")
		}
		time.Sleep(10 * time.Millisecond)
	}
	shutdownWithin(t, s)
	assertStopped(t, s, dir)
	if err := syscall.Kill(hung, 0); !errors.Is(err, syscall.ESRCH) {
		t.Fatalf("the restart attempt (pid %d) outlived Shutdown: kill 0 = %v", hung, err)
	}
}

// shutdownWithin runs Shutdown and fails t if it does not return in 20 s
// (it must not wait out a restart delay or attempt).
func shutdownWithin(t *testing.T, s *Server) {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- s.Shutdown(context.Background()) }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Shutdown: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Shutdown did not return within 20s")
	}
}

// assertStopped checks that nothing serves dir's socket and s says stopped.
func assertStopped(t *testing.T, s *Server, dir string) {
	t.Helper()
	if _, ok := ping(context.Background(), filepath.Join(dir, "redis", socketName)); ok {
		t.Fatal("a redis-server answers after Shutdown")
	}
	if _, err := os.Stat(filepath.Join(dir, "redis", pidName)); !os.IsNotExist(err) {
		t.Fatalf("pid file after Shutdown: %v", err)
	}
	if s.Err() != nil || !errors.Is(s.Health(), ErrStopped) {
		t.Fatalf("after Shutdown Err %v Health %v, want nil and ErrStopped", s.Err(), s.Health())
	}
}

func TestNoGoroutineLeakAfterRestart(t *testing.T) {
	before := runtime.NumGoroutine()
	func() {
		s, events := startWatched(t, Options{DataDir: t.TempDir(),
			Restart: RestartPolicy{FirstDelay: time.Millisecond}})
		kill9(t, s)
		nextEvent(t, events, StateDown)
		nextEvent(t, events, StateUp)
		shutdownT(t, s)
	}()
	waitGoroutines(t, before)
}

func TestRestartDelayDoublesUpToMax(t *testing.T) {
	p := RestartPolicy{}.withDefaults()
	var got []time.Duration
	for n := range 8 {
		got = append(got, p.delay(n))
	}
	ms := time.Millisecond
	want := []time.Duration{100 * ms, 200 * ms, 400 * ms, 800 * ms, 1600 * ms, 3200 * ms, 5000 * ms, 5000 * ms}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("delays %v, want %v", got, want)
		}
	}
	if p.Attempts != DefaultRestartAttempts || (RestartPolicy{Attempts: -1}).withDefaults().Attempts != 0 {
		t.Fatalf("attempts: default %d, off %d", p.Attempts, RestartPolicy{Attempts: -1}.withDefaults().Attempts)
	}
}
