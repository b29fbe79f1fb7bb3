package node_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hyphae-run/hyphae/node/api/wire"
)

// kLog is a file jobs append "start <name>" and "end <name>" lines to.
type kLog string

func newKLog(t *testing.T) kLog { return kLog(filepath.Join(t.TempDir(), "events")) }

// script records the job's start, runs body, records its end.
func (l kLog) script(name, body string) string {
	return fmt.Sprintf("echo 'start %[1]s' >> %[2]s\n%[3]s\necho 'end %[1]s' >> %[2]s", name, string(l), body)
}

// waitFor is a script body that waits (bounded) until the log holds line.
func (l kLog) waitFor(line string) string {
	return fmt.Sprintf(`i=0; until grep -qx '%s' %s; do i=$((i+1)); [ $i -gt 600 ] && exit 7; sleep 0.05; done`, line, string(l))
}

func (l kLog) lines(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile(string(l))
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSpace(string(b)), "\n")
}

// before reports whether line a comes before line b in the log.
func (l kLog) before(t *testing.T, a, b string) bool {
	t.Helper()
	ia, ib := -1, -1
	for i, s := range l.lines(t) {
		if s == a && ia < 0 {
			ia = i
		}
		if s == b && ib < 0 {
			ib = i
		}
	}
	return ia >= 0 && ib >= 0 && ia < ib
}

// A job sent from agent A with a concurrency key waits, on agent B that
// runs it, for B's own job of that key: the key is B's runner's, and the
// fields travel with the job.
func TestKeyedJobFromAnotherAgentHonoursRunnersKey(t *testing.T) {
	t.Parallel()
	b := startAgent(t, agentOpts{slots: 4})
	a := startAgent(t, agentOpts{bootstrap: []string{b.addr(t)}})
	grantExecutor(t, b, 2, a.peerID())
	waitPeerUp(t, a, b.peerID())
	l := newKLog(t)
	gate := filepath.Join(t.TempDir(), "go")

	var holder, sent wire.JobView
	b.call(t, "job.run", map[string]any{"context": 2, "type": "sh", "concurrency_key": "device-7",
		"script": l.script("holder", fmt.Sprintf(`while [ ! -e %s ]; do sleep 0.05; done`, gate))}, &holder)
	eventually(t, 30*time.Second, "the holder to start", func() bool { return hasLine(l, "start holder") })
	a.call(t, "job.run", map[string]any{"to": b.peerID(), "context": 2, "type": "sh",
		"concurrency_key": "device-7", "script": l.script("sent", "true")}, &sent)
	eventually(t, 30*time.Second, "the sent job to be parked on B", func() bool {
		st, err := b.Store().Queues.KeyedStateOf(context.Background(), 2, "device-7")
		return err == nil && len(st.Parked) == 1
	})
	if hasLine(l, "start sent") {
		t.Fatal("the sent job started while B's job of its key ran")
	}
	if err := os.WriteFile(gate, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if got := waitJob(t, a, sent.ContextID, sent.Key); got.Status != "finished" {
		t.Fatalf("sent job = %+v", got)
	}
	if got := waitJob(t, b, 2, holder.Key); got.Status != "finished" {
		t.Fatalf("holder = %+v", got)
	}
	if !l.before(t, "end holder", "start sent") {
		t.Fatalf("events %v: the sent job began before the holder ended", l.lines(t))
	}
}

func hasLine(l kLog, line string) bool {
	b, _ := os.ReadFile(string(l))
	for _, s := range strings.Split(string(b), "\n") {
		if s == line {
			return true
		}
	}
	return false
}

// Flow jobs with a concurrency_key (here templated from the flow's env)
// never overlap, while a job with another key runs beside the first.
func TestFlowJobsWithConcurrencyKey(t *testing.T) {
	t.Parallel()
	a := startAgent(t, agentOpts{slots: 4})
	a.call(t, "context.create", map[string]any{"id": 1}, nil)
	l := newKLog(t)
	indent := func(s string) string { return strings.ReplaceAll(s, "\n", "\n      ") }
	text := fmt.Sprintf(`name: keyed
context: 1
env: {DEV: d1}
jobs:
  one:
    type: sh
    concurrency_key: dev-${DEV}
    script: |
      %s
  two:
    type: sh
    concurrency_key: dev-${DEV}
    script: |
      %s
  other:
    type: sh
    concurrency_key: dev-d2
    max_in_flight: 1
    script: |
      %s
`, indent(l.script("one", l.waitFor("start other"))), indent(l.script("two", "sleep 0.1")),
		indent(l.script("other", l.waitFor("start one"))))
	v := waitFlow(t, a, runFlow(t, a, text))
	if v.Status != "finished" {
		t.Fatalf("flow ended %s", v.Status)
	}
	oneFirst := l.before(t, "end one", "start two")
	twoFirst := l.before(t, "end two", "start one")
	if !oneFirst && !twoFirst {
		t.Fatalf("jobs one and two of key dev-d1 overlapped: %v", l.lines(t))
	}
	j, err := a.Store().Jobs.LoadJobKey(context.Background(), 1, jobOf(t, v, "two").Key)
	if err != nil {
		t.Fatal(err)
	}
	if c := j.Concurrency(); c.Key != "dev-d1" || c.MaxInFlight != 1 {
		t.Fatalf("job two's concurrency %+v, want key dev-d1 (the env filled in), max 1", c)
	}
}

// job.run takes a concurrency key (the job shows it) and refuses a bad
// key or limit, naming the parameter.
func TestJobRunRefusesBadConcurrency(t *testing.T) {
	t.Parallel()
	a := startAgent(t, agentOpts{})
	a.call(t, "context.create", map[string]any{"id": 1}, nil)
	var v wire.JobView
	a.call(t, "job.run", map[string]any{"context": 1, "type": "sh", "script": "true",
		"concurrency_key": "device-1", "max_in_flight": 2, "wait": 30}, &v)
	if v.Status != "finished" || v.ConcurrencyKey != "device-1" || v.MaxInFlight != 2 {
		t.Fatalf("job run with a key: %+v", v)
	}
	for field, p := range map[string]map[string]any{
		"max_in_flight":   {"context": 1, "type": "sh", "script": "true", "max_in_flight": 2},
		"concurrency_key": {"context": 1, "type": "sh", "script": "true", "concurrency_key": strings.Repeat("k", 201)},
	} {
		err := a.client.Call(context.Background(), "job.run", p, nil)
		if err == nil || !strings.Contains(err.Error(), field) {
			t.Errorf("job.run with a bad %s: %v, want an error naming it", field, err)
		}
	}
}
