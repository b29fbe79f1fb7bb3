package node_test

import (
	"context"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hyphae-run/hyphae/node/api"
	"github.com/hyphae-run/hyphae/node/api/wire"
	"github.com/hyphae-run/hyphae/node/config"
)

// A runner that keeps refusing jobs trips this agent's circuit breaker for
// it after breaker.threshold faults: jobs routed to any then go to the
// other registered runner, a job addressed to it is refused at once naming
// the breaker, peer.list and the metrics show it open; once fixed, after
// the cool-down one probe job goes through and closes it.
func TestBreakerRoutesAroundAFailingRunner(t *testing.T) {
	t.Parallel()
	brk := config.Breaker{Threshold: 3, Window: time.Minute, Cooldown: 2 * time.Second}
	b := startAgent(t, agentOpts{}) // it has no context 1: it refuses every job
	c := startAgent(t, agentOpts{bootstrap: []string{b.addr(t)}})
	a := startAgent(t, agentOpts{bootstrap: []string{b.addr(t)}, roles: []string{"supervisor"}, breaker: brk})
	grantExecutor(t, c, 1, a.peerID())
	a.call(t, "context.create", map[string]any{"id": 1}, nil)
	a.call(t, "runner.create", map[string]any{"context": 1, "pubkey": b.peerID()}, nil)
	for _, p := range []*agent{b, c} {
		eventually(t, 30*time.Second, "a to see the runner up with sh", func() bool {
			r := peerRow(t, a, p.peerID())
			return r.State == "up" && slices.Contains(r.ScriptTypes, "sh")
		})
	}

	for i := 0; i < brk.Threshold; i++ { // b, the only runner registered, refuses each
		if j := runAny(t, a); j.Status != "error" || !strings.Contains(j.Error, "does not exist there") {
			t.Fatalf("job %d = %+v; want it refused by b", i, j)
		}
	}
	br := peerRow(t, a, b.peerID()).Breaker
	if br == nil || br.State != "open" || br.Failures != brk.Threshold || br.Trips != 1 || br.Until <= br.OpenedAt {
		t.Fatalf("b's breaker after %d refusals = %+v; want open", brk.Threshold, br)
	}
	if v := metricValue(t, a, `hyphae_breaker_state{peer="`+b.peerID()+`"}`); v != 1 {
		t.Errorf("hyphae_breaker_state for b = %v, want 1 (open)", v)
	}
	if v := metricValue(t, a, `hyphae_breaker_trips_total{peer="`+b.peerID()+`"}`); v != 1 {
		t.Errorf("hyphae_breaker_trips_total for b = %v, want 1", v)
	}

	a.call(t, "runner.create", map[string]any{"context": 1, "pubkey": c.peerID()}, nil)
	for i := 0; i < 3; i++ { // b's breaker is open: every job goes to c
		if j := runAny(t, a); j.Status != "finished" || j.Runner != c.peerID() {
			t.Fatalf("job %d while b's breaker is open = %+v; want it finished on c %s", i, j, c.peerID())
		}
	}
	err := a.client.Call(context.Background(), "job.run",
		map[string]any{"to": b.peerID(), "context": 1, "type": "sh", "script": "true"}, nil)
	var ae *api.Error
	if !errors.As(err, &ae) || !strings.Contains(ae.Message, "circuit breaker for peer "+b.peerID()+" is open") {
		t.Fatalf("job.run addressed to b while its breaker is open: %v; want it refused, naming the breaker", err)
	}

	grantExecutor(t, b, 1, a.peerID()) // b is fixed
	eventually(t, 30*time.Second, "b's breaker to go half-open after the cool-down", func() bool {
		br := peerRow(t, a, b.peerID()).Breaker
		return br != nil && br.State == "half-open"
	})
	var probe wire.JobView
	a.call(t, "job.run", map[string]any{"to": b.peerID(), "context": 1, "type": "sh", "script": "true", "wait": 60}, &probe)
	if probe.Status != "finished" {
		t.Fatalf("probe job to b = %+v; want it finished", probe)
	}
	// The result is counted just after the job's end is written.
	eventually(t, 30*time.Second, "the probe's success to close b's breaker", func() bool {
		br := peerRow(t, a, b.peerID()).Breaker
		return br != nil && br.State == "closed" && br.Failures == 0 && br.Trips == 1
	})
	if v := metricValue(t, a, `hyphae_breaker_state{peer="`+b.peerID()+`"}`); v != 0 {
		t.Errorf("hyphae_breaker_state for b after the probe = %v, want 0 (closed)", v)
	}
}

// A runner's result counts against its breaker only when the job did not
// run there (a script type it lacks), never for the script's own failure.
func TestBreakerCountsJobsThatDidNotRunThere(t *testing.T) {
	t.Parallel()
	brk := config.Breaker{Threshold: 2, Window: time.Minute, Cooldown: time.Hour}
	b := startAgent(t, agentOpts{})
	a := startAgent(t, agentOpts{bootstrap: []string{b.addr(t)}, breaker: brk})
	grantExecutor(t, b, 1, a.peerID())
	run := func(typ, script string) (wire.JobView, error) {
		var j wire.JobView
		err := a.client.Call(context.Background(), "job.run", map[string]any{"to": b.peerID(), "context": 1,
			"type": typ, "script": script, "wait": 60}, &j)
		return j, err
	}
	for i := 0; i < 3; i++ {
		if j, err := run("sh", "exit 1"); err != nil || j.Status != "error" {
			t.Fatalf("failing script %d: %+v, %v", i, j, err)
		}
	}
	// Each result is counted just after its job's end is written: the
	// first two at least were counted by the time the third ended.
	if br := peerRow(t, a, b.peerID()).Breaker; br == nil || br.State != "closed" || br.Failures != 0 {
		t.Fatalf("b's breaker after scripts that exit 1 = %+v; want closed, no faults", br)
	}
	for i := 0; i < brk.Threshold; i++ {
		if j, err := run("perl", "print 1"); err != nil || !strings.Contains(j.Error, "serves script type") {
			t.Fatalf("job of a type b lacks %d: %+v, %v", i, j, err)
		}
	}
	eventually(t, 30*time.Second, "b's breaker to open", func() bool {
		br := peerRow(t, a, b.peerID()).Breaker
		return br != nil && br.State == "open"
	})
	if _, err := run("sh", "true"); err == nil || !strings.Contains(err.Error(), "circuit breaker for peer") {
		t.Fatalf("job to b after %d jobs that did not run there: %v; want it refused by the open breaker", brk.Threshold, err)
	}
}

// runAny runs a job of type sh in context 1 on whichever runner a
// chooses, and waits for its end.
func runAny(t *testing.T, a *agent) wire.JobView {
	t.Helper()
	var j wire.JobView
	a.call(t, "job.run", map[string]any{"to": wire.ToAny, "context": 1, "type": "sh", "script": "true", "wait": 60}, &j)
	return j
}

// peer.list names each peer's host, from its presence records.
func TestPeerListShowsHostNames(t *testing.T) {
	t.Parallel()
	want, err := os.Hostname()
	if err != nil || want == "" {
		t.Skipf("no host name here: %v", err)
	}
	b := startAgent(t, agentOpts{})
	a := startAgent(t, agentOpts{bootstrap: []string{b.addr(t)}})
	eventually(t, 30*time.Second, "a to list b with its host name", func() bool {
		r := peerRow(t, a, b.peerID())
		return r.Host == want && r.Breaker != nil && r.Breaker.State == "closed"
	})
}
