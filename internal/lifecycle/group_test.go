package lifecycle

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

func TestStartOnce(t *testing.T) {
	var g Group
	ctx, err := g.Start(context.Background())
	if err != nil || ctx == nil {
		t.Fatalf("first start: %v", err)
	}
	if _, err := g.Start(context.Background()); !errors.Is(err, ErrStarted) {
		t.Fatalf("second start: %v, want ErrStarted", err)
	}
	if err := g.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if ctx.Err() == nil {
		t.Fatal("Shutdown left the group's context alive")
	}
	var s Group
	if err := s.Shutdown(context.Background()); err != nil {
		t.Fatalf("shutdown before start: %v", err)
	}
	if _, err := s.Start(context.Background()); !errors.Is(err, ErrStopped) {
		t.Fatalf("start after shutdown: %v, want ErrStopped", err)
	}
}

func TestGoRefusedBeforeStartAndOnceStopping(t *testing.T) {
	var g Group
	ran := atomic.Int32{}
	f := func(context.Context) { ran.Add(1) }
	if g.Go(f) || g.Enter() {
		t.Fatal("Go or Enter accepted work before Start")
	}
	if _, err := g.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	if !g.Stop() || g.Stop() {
		t.Fatal("Stop should report true once, then false")
	}
	if g.Go(f) || g.Enter() || g.Running() {
		t.Fatal("Go or Enter accepted work after Stop")
	}
	if err := g.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	if ran.Load() != 0 {
		t.Fatalf("%d refused functions ran", ran.Load())
	}
}

// Shutdown cancels the context the goroutines got and returns only after
// every one of them, and every piece of work entered, has ended.
func TestShutdownWaitsForGoroutinesAndWork(t *testing.T) {
	var g Group
	if _, err := g.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	var ended atomic.Int32
	for range 8 {
		g.Go(func(ctx context.Context) {
			<-ctx.Done()
			ended.Add(1)
		})
	}
	if !g.Enter() {
		t.Fatal("Enter refused while running")
	}
	go func() {
		<-g.Done()
		ended.Add(1)
		g.Leave()
	}()
	if err := g.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := ended.Load(); n != 9 {
		t.Fatalf("Shutdown returned with %d of 9 ended", n)
	}
}

// When ctx ends first, Shutdown says how many are still running and wraps
// ctx's error; a second call returns the same error.
func TestShutdownTimeoutNamesWhatRuns(t *testing.T) {
	var g Group
	if _, err := g.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	release := make(chan struct{})
	for range 2 {
		g.Go(func(context.Context) { <-release }) // ignores its context
	}
	ctx, cancel := context.WithTimeout(context.Background(), 0)
	defer cancel()
	err := g.Shutdown(ctx)
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "2 goroutines") {
		t.Fatalf("shutdown: %v, want 2 goroutines and DeadlineExceeded", err)
	}
	if again := g.Shutdown(context.Background()); again != err {
		t.Fatalf("second shutdown: %v, want the first's %v", again, err)
	}
	close(release)
	if err := g.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// A Shutdown called while another one waits returns at once.
func TestConcurrentShutdownDoesNotWait(t *testing.T) {
	var g Group
	if _, err := g.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	release := make(chan struct{})
	g.Go(func(context.Context) { <-release })
	first := make(chan error)
	go func() { first <- g.Shutdown(context.Background()) }()
	<-g.Done() // closed by the first call's Stop, after it marked itself
	if err := g.Shutdown(context.Background()); err != nil {
		t.Fatalf("second shutdown: %v", err)
	}
	close(release)
	if err := <-first; err != nil {
		t.Fatalf("first shutdown: %v", err)
	}
}

// Goroutines started concurrently with Shutdown either are refused or
// have ended when Shutdown returns: none starts after it began waiting.
func TestGoRacingShutdown(t *testing.T) {
	for range 50 {
		var g Group
		if _, err := g.Start(context.Background()); err != nil {
			t.Fatal(err)
		}
		var accepted, ended atomic.Int32
		var wg sync.WaitGroup
		for range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for g.Go(func(context.Context) { ended.Add(1) }) {
					accepted.Add(1)
				}
			}()
		}
		if err := g.Shutdown(context.Background()); err != nil {
			t.Fatal(err)
		}
		endedAtShutdown := ended.Load()
		wg.Wait() // the loops end at their first refusal
		if a := accepted.Load(); a != endedAtShutdown {
			t.Fatalf("%d goroutines accepted, %d ended when Shutdown returned", a, endedAtShutdown)
		}
	}
}
