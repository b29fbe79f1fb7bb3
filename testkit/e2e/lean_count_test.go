package e2e

import (
	"context"
	"testing"
	"time"
)

// The counts of a plain job, which machine noise does not move: what a
// plain noop job costs the agent's store in Redis commands (INFO stats,
// scripts' inner commands included, less the client's HSET, LPUSH and
// BLPOP) and in keys kept once it ended. Issue 38 aims at 16 and 1.5; the
// bounds here hold what has been reached (18.7 and 1.0), with a little
// room for the agent's own background commands in the window.
const (
	maxPlainJobCommands = 20.0
	maxPlainJobKeys     = 1.0
)

// Not parallel: the agent's background commands grow with the window,
// which a busy machine stretches.
func TestPlainJobCommandsAndKeys(t *testing.T) {
	ctx := context.Background()
	a := startLean(t, 1)
	rc, meter := a.redis(t, 1), a.redis(t, 0)
	spread(20, 4, func(s, i int) { leanSubmit(t, rc, s, 1_000_000+i) }) // warm
	const n = 400
	u0, err := leanSample(ctx, meter)
	if err != nil {
		t.Fatal(err)
	}
	spread(n, 4, func(s, i int) { leanSubmit(t, rc, s, i) })
	u1, err := leanSample(ctx, meter)
	if err != nil {
		t.Fatal(err)
	}
	d := u1.sub(u0)
	perJob := float64(d.commands)/n - 3
	t.Logf("Redis commands per plain noop job, less the client's 3: %.2f (%s)", perJob, d.top(n, ""))
	if perJob > maxPlainJobCommands {
		t.Errorf("a plain noop job costs %.2f Redis commands, more than %.0f: %s", perJob, maxPlainJobCommands, d.top(n, ""))
	}
	// Keys: what is left a moment after the last reply (the end's writes
	// are in the script that pushes it), polled until it stops moving.
	var keys float64
	deadline := time.Now().Add(10 * time.Second)
	for {
		u2, err := leanSample(ctx, meter)
		if err != nil {
			t.Fatal(err)
		}
		keys = float64(u2.keys-u0.keys) / n
		if keys <= maxPlainJobKeys || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if keys > maxPlainJobKeys {
		t.Errorf("each ended plain job keeps %.2f keys, more than %.1f: %s", keys, maxPlainJobKeys, keyKinds(ctx, rc))
	}
}
