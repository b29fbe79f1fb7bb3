package config_test

import (
	"strings"
	"testing"
	"time"

	"github.com/hyphae-run/hyphae/node/config"
)

// runner_lost_after defaults to an hour and may not be below runner_grace
// (a job is unknown first, lost later).
func TestRunnerLostAfter(t *testing.T) {
	c, err := config.Parse([]byte("supervisor:\n  runner_grace: 10s\n"), "t")
	if err != nil {
		t.Fatal(err)
	}
	c.Defaults()
	if c.Supervisor.RunnerLostAfter != time.Hour {
		t.Errorf("default runner_lost_after = %v, want 1h", c.Supervisor.RunnerLostAfter)
	}
	if err := c.Validate(); err != nil {
		t.Errorf("defaults refused: %v", err)
	}
	c.Supervisor.RunnerLostAfter = 5 * time.Second
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "supervisor.runner_lost_after: 5s is below runner_grace (10s)") {
		t.Errorf("runner_lost_after below the grace: %v", err)
	}
}
