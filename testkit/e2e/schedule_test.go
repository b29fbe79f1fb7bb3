package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hyphae-run/hyphae/testkit/need"
)

type scheduleOut struct {
	Name     string `json:"name"`
	Paused   bool   `json:"paused"`
	Runs     int64  `json:"runs"`
	LastFlow uint64 `json:"last_flow"`
	NextTick int64  `json:"next_tick"`
}

func schedules(t *testing.T, a *flowAgent) []scheduleOut {
	t.Helper()
	var out []scheduleOut
	decode(t, a.hy(t, "flow", "schedule", "list", "--json"), &out)
	return out
}

// A schedule installed with the CLI starts runs of its flow at its ticks,
// outlives kill -9 of the agent (and its redis-server), and can be
// paused, resumed and removed.
func TestFlowScheduleThroughTheCLI(t *testing.T) {
	t.Parallel()
	need.Tool(t, "redis-server", "redis-server")
	a := startFlowAgent(t, "a", "")
	a.hy(t, "context", "create", "--id", "1")
	marks := t.TempDir()
	file := writeFlow(t, fmt.Sprintf(`name: tick
context: 1
schedule: '@every 1s'
env: {MARKS: %s}
jobs:
  mark: {type: sh, script: 'echo "$HYPHAE_SCHEDULE_TICK" >> "$MARKS/ticks"'}
`, marks))
	out := a.hy(t, "flow", "schedule", "add", file)
	if !strings.Contains(out, "tick") || !strings.Contains(out, "@every 1s") {
		t.Fatalf("schedule add printed %q", out)
	}
	runs := func() int64 {
		s := schedules(t, a)
		if len(s) != 1 {
			t.Fatalf("schedules %+v, want one", s)
		}
		return s[0].Runs
	}
	eventually(t, 30*time.Second, "two scheduled runs", func() bool { return runs() >= 2 })
	a.proc.kill9()
	a.restart(t)
	before := runs()
	eventually(t, 30*time.Second, "a run after the restart", func() bool { return runs() > before })
	a.hy(t, "flow", "schedule", "pause", "tick", "--context", "1")
	s := schedules(t, a)
	if !s[0].Paused || s[0].NextTick != 0 {
		t.Fatalf("after pause: %+v", s[0])
	}
	a.hy(t, "flow", "schedule", "resume", "tick", "--context", "1")
	if s := schedules(t, a); s[0].Paused {
		t.Fatalf("after resume: %+v", s[0])
	}
	a.hy(t, "flow", "schedule", "remove", "tick", "--context", "1")
	if s := schedules(t, a); len(s) != 0 {
		t.Fatalf("after remove: %+v", s)
	}
}
