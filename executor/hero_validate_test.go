package executor_test

import (
	"context"
	"strings"
	"testing"
)

// Seed 004 "validate script content before execution": an empty script
// ends error, saying so, instead of finishing having run nothing.
func TestHeroEmptyScript(t *testing.T) {
	_, c := heroHarness(t)
	heroJob(t, c, "empty", " \n")
	heroPush(t, c, "empty")
	if rep, hj := heroAwait(t, c, "empty"); hj["status"] != "error" || !strings.Contains(hj["error"], "script is empty") ||
		rep != "error: "+hj["error"] {
		t.Fatalf("empty script: reply %q, hash %v", rep, hj)
	}
}

// A hero job naming one not written yet waits for it and runs after it;
// one naming a job never written ends error at its own timeout.
func TestHeroDependencyWrittenLater(t *testing.T) {
	_, c := heroHarness(t)
	heroJob(t, c, "down", "echo down", "prerequisites", `["up"]`)
	heroJob(t, c, "lone", "echo lone", "prerequisites", `["ghost"]`, "timeout", "1")
	heroPush(t, c, "down", "lone")
	if rep, hj := heroAwait(t, c, "lone"); hj["status"] != "error" || !strings.Contains(hj["error"], "ghost was not written within 1s") {
		t.Fatalf("lone: reply %q, hash %v", rep, hj)
	}
	if st := c.HGet(context.Background(), "hero:job:down", "status").Val(); st == "error" || st == "finished" {
		t.Fatalf("down ended %q before up was written", st)
	}
	heroJob(t, c, "up", "echo up")
	heroPush(t, c, "up")
	if rep, hj := heroAwait(t, c, "down"); rep != "down\n" || hj["status"] != "finished" {
		t.Fatalf("down: reply %q, hash %v", rep, hj)
	}
}
