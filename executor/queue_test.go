package executor_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// A job on the queue of a type this agent does not serve ends error within
// seconds, saying which types the agent has.
func TestUnknownTypeFailsWithTypeList(t *testing.T) {
	h := newHarness(t)
	cfg := h.config()
	cfg.Executors = map[string][]string{"shx": {"sh", "{file}"}}
	r := h.start(t, cfg)
	c := h.client(t, 1)
	got := waitEnd(t, c, submit(t, c, 1, 1, "cobol", `DISPLAY 'HI'.`))
	want := `no runner on this agent (runner-a) serves script type "cobol"; it has: bash, noop, python, sh, shx`
	if got["status"] != "error" || got["error"] != want {
		t.Fatalf("status %q error %q", got["status"], got["error"])
	}
	if strings.Join(r.ScriptTypes(), ",") != "bash,noop,python,sh,shx" {
		t.Fatalf("ScriptTypes %v", r.ScriptTypes())
	}
	// A configured executor runs its script type.
	if got := waitEnd(t, c, submit(t, c, 1, 2, "shx", `echo "via=$0" >> "$HYPHAE_RESULT"`)); got["status"] != "finished" ||
		!strings.HasSuffix(resultOf(t, got)["via"], "script.shx") {
		t.Fatalf("shx job: %v", got)
	}
}

// Jobs already queued before the runner starts, on unserved types, are
// found by the start-up sweep.
func TestUnknownTypeQueuedBeforeStart(t *testing.T) {
	h := newHarness(t)
	c := h.client(t, 1)
	key := submit(t, c, 1, 1, "fortran", `x`)
	h.start(t, h.config())
	if got := waitEnd(t, c, key); !strings.Contains(got["error"], `script type "fortran"`) {
		t.Fatalf("hash %v", got)
	}
}

// Unusable jobs go to dead_letter with the reason; the runner keeps serving.
func TestDeadLetter(t *testing.T) {
	h := newHarness(t)
	h.start(t, h.config())
	c := h.client(t, 1)
	ctx := context.Background()
	badStatus := submit(t, c, 1, 1, "sh", `true`, "status", "bogus") // the later field wins
	badTimeout := submit(t, c, 1, 2, "sh", `true`, "timeout", "soon")
	if err := c.LPush(ctx, "queue:sh", "job:1:404").Err(); err != nil {
		t.Fatal(err)
	}
	good := submit(t, c, 1, 3, "sh", `true`)
	if got := waitEnd(t, c, good); got["status"] != "finished" {
		t.Fatalf("good job after bad ones: %v", got)
	}
	if got := waitEnd(t, c, badTimeout); got["status"] != "error" ||
		!strings.HasPrefix(got["error"], `cannot parse job: job:1:2 field "timeout" = "soon"`) {
		t.Fatalf("unparseable job: %v", got)
	}
	reasons := map[string]string{}
	waitFor(t, "3 dead letters", func() bool {
		for _, raw := range mustLRange(t, c, "dead_letter") {
			var d struct{ Key, Reason string }
			if json.Unmarshal([]byte(raw), &d) == nil {
				reasons[d.Key] = d.Reason
			}
		}
		return len(reasons) == 3
	})
	if !strings.HasPrefix(reasons[badStatus], `invalid job: status "bogus" is not one of `) || !strings.Contains(reasons["job:1:404"], "does not exist") ||
		!strings.Contains(reasons[badTimeout], `field "timeout"`) {
		t.Fatalf("dead letters %v", reasons)
	}
	if n := c.LLen(ctx, "processing:runner-a").Val(); n != 0 {
		t.Fatalf("processing list keeps %d entries", n)
	}
}

// Without keyspace notifications (a server that drops them, or refuses
// CONFIG) jobs are still picked up, by polling.
func TestPollingWithoutKeyspaceEvents(t *testing.T) {
	h := newHarness(t)
	cfg := h.config()
	cfg.Poll = 50 * time.Millisecond
	cfg.ContextRefresh = time.Hour // do not turn the notifications back on
	h.start(t, cfg)
	c0 := h.client(t, 0)
	if err := c0.ConfigSet(context.Background(), "notify-keyspace-events", "").Err(); err != nil {
		t.Fatal(err)
	}
	c := h.client(t, 1)
	if got := waitEnd(t, c, submit(t, c, 1, 1, "sh", `echo polled`)); got["status"] != "finished" {
		t.Fatalf("hash %v", got)
	}
}
