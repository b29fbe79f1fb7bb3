package e2e

import (
	"context"
	"testing"
	"time"
)

// An idle agent sends its store almost nothing (issue 38): its loops wait
// on keyspace notifications, timers and blocking reads, not polls. What
// is left is periodic and known: the replay horizon (3 commands every
// 20 s), each keyspace watch's re-check (a CONFIG GET a minute; four
// watches), the context list's safety scan (a minute), the safety passes
// (5 min). So a quiet agent's 10 s hold at most idleBudget commands,
// however many contexts it has; before, 20 contexts cost ~4000.
const (
	idleWindow = 10 * time.Second
	idleBudget = 10
)

// Not parallel, as the other e2e tests are: it counts commands over a
// window, with nothing else of this package running.
func TestIdleAgentSendsRedisAlmostNothing(t *testing.T) {
	ctx := context.Background()
	a := startLean(t, 20)
	meter := a.redis(t, 0)
	waitQuiet(t, a)
	u0, err := leanSample(ctx, meter)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(idleWindow) // the measurement itself
	u1, err := leanSample(ctx, meter)
	if err != nil {
		t.Fatal(err)
	}
	d := u1.sub(u0)
	t.Logf("idle agent, 20 contexts, %v: %d commands: %s", idleWindow, d.commands, d.top(1, ""))
	if d.commands > idleBudget {
		t.Errorf("an idle agent with 20 contexts sent %d commands in %v, want at most %d: %s",
			d.commands, idleWindow, idleBudget, d.top(1, ""))
	}
}

// waitQuiet waits until the agent's start-up work is over: a 2 s span in
// which its store saw no command but the meter's.
func waitQuiet(t *testing.T, a *leanAgent) {
	t.Helper()
	ctx, meter := context.Background(), a.redis(t, 0)
	deadline := time.Now().Add(60 * time.Second)
	prev, err := leanSample(ctx, meter)
	for err == nil {
		time.Sleep(2 * time.Second)
		var cur leanUsage
		if cur, err = leanSample(ctx, meter); err != nil {
			break
		}
		d := cur.sub(prev)
		if d.commands == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the agent never went 2 s without a command in 60 s; the last 2 s: %s", d.top(1, ""))
		}
		prev = cur
	}
	t.Fatal(err)
}
