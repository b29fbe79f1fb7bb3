package embedredis

import (
	"context"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestShutdownKillsAHungChild: a child that neither answers SHUTDOWN nor
// reacts to SIGTERM (here: stopped with SIGSTOP) is killed after the bound.
func TestShutdownKillsAHungChild(t *testing.T) {
	needRedisServer(t)
	old := shutdownTimeout
	shutdownTimeout = 300 * time.Millisecond
	t.Cleanup(func() { shutdownTimeout = old })
	s, err := Start(context.Background(), Options{DataDir: t.TempDir(), Log: testLog(t)})
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(childPid(s), syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	err = s.Shutdown(context.Background())
	if err == nil || !strings.Contains(err.Error(), "killed") {
		t.Fatalf("Shutdown of a hung child: %v, want an error saying it was killed", err)
	}
	select {
	case <-s.Done():
	default:
		t.Fatal("Done not closed after the kill")
	}
	if s.Err() != nil {
		t.Fatalf("Err = %v after a Shutdown, want nil", s.Err())
	}
}

// TestNoGoroutineLeak: after Shutdown, nothing of the server keeps running,
// even with a client that was blocked in BLPOP.
func TestNoGoroutineLeak(t *testing.T) {
	for _, k := range kinds {
		t.Run(k.name, func(t *testing.T) {
			if !k.inProcess {
				needRedisServer(t)
			}
			before := runtime.NumGoroutine()
			runAndStop(t, k)
			waitGoroutines(t, before)
		})
	}
}

// waitGoroutines fails t unless the goroutine count falls back to before.
func waitGoroutines(t *testing.T, before int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<16)
			t.Fatalf("%d goroutines before, %d after:\n%s", before,
				runtime.NumGoroutine(), buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func runAndStop(t *testing.T, k kind) {
	s, err := Start(context.Background(), Options{DataDir: t.TempDir(), ForceInProcess: k.inProcess})
	if err != nil {
		t.Fatal(err)
	}
	c := clientDB(t, s, 1)
	blocked := make(chan error)
	go func() { blocked <- c.BLPop(context.Background(), 0, "never").Err() }()
	time.Sleep(100 * time.Millisecond)
	if err := s.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	<-blocked
	_ = c.Close()
}
