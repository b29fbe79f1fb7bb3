// Package poll is the tests' one way to wait for a condition: poll it with a
// short, growing interval until it holds or a deadline passes. Tests wait
// this way instead of sleeping for a guessed time, so a slow machine makes
// them slower, not flaky.
package poll

import (
	"testing"
	"time"
)

// Eventually polls cond until it holds, or fails t after d, naming what it
// waited for. The interval starts at 5 ms and doubles up to 100 ms.
func Eventually(t testing.TB, d time.Duration, what string, cond func() bool) {
	t.Helper()
	if !Until(d, cond) {
		t.Fatalf("timed out after %v waiting for %s", d, what)
	}
}

// Until polls cond until it holds (true) or d passes (false), for callers
// that handle the timeout themselves.
func Until(d time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(d)
	wait := 5 * time.Millisecond
	for !cond() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(wait)
		wait = min(2*wait, 100*time.Millisecond)
	}
	return true
}
