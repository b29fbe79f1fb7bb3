package node_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/hyphae-run/hyphae/node/api/wire"
)

// waitJob follows a job through the API until it ends.
func waitJob(t testing.TB, a *agent, ctxID uint64, key string) wire.JobView {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	var j wire.JobView
	for time.Now().Before(deadline) {
		a.call(t, "job.wait", map[string]any{"context": ctxID, "key": key, "timeout": 2}, &j)
		if j.Status == "finished" || j.Status == "error" {
			return j
		}
	}
	t.Fatalf("job %s did not end within a minute; it is %+v", key, j)
	return wire.JobView{}
}

func TestCrossTenantJobRunsRemotelyAndResultComesBack(t *testing.T) {
	t.Parallel()
	b := startAgent(t, agentOpts{})
	a := startAgent(t, agentOpts{bootstrap: []string{b.addr(t)}})
	// bob owns context 2 and lets alice execute there.
	grantExecutor(t, b, 2, a.peerID())

	var j wire.JobView
	a.call(t, "job.run", map[string]any{"to": b.peerID(), "context": 2, "type": "sh",
		"script": `echo "host=$HYPHAE_CONTEXT_ID" >> "$HYPHAE_RESULT"; echo ran`}, &j)
	got := waitJob(t, a, j.ContextID, j.Key)
	if got.Status != "finished" || got.Result["host"] != "2" || !strings.Contains(got.Result["stdout"], "ran") {
		t.Fatalf("origin job = %+v", got)
	}
	// The job really ran in bob's context 2.
	if jobs := endedJobs(t, b, 2, 1); jobs[0].Status != "finished" {
		t.Fatalf("bob's context 2 jobs = %+v", jobs)
	}
}

func TestCrossTenantJobRefusedWithoutGrant(t *testing.T) {
	t.Parallel()
	b := startAgent(t, agentOpts{})
	a := startAgent(t, agentOpts{bootstrap: []string{b.addr(t)}})
	b.call(t, "context.create", map[string]any{"id": 3}, nil)

	var j wire.JobView
	a.call(t, "job.run", map[string]any{"to": b.peerID(), "context": 3, "type": "sh", "script": "touch /tmp/should-not-run"}, &j)
	got := waitJob(t, a, j.ContextID, j.Key)
	if got.Status != "error" || !strings.Contains(got.Error, "refused") {
		t.Fatalf("origin job = %+v, want a refusal", got)
	}
	// The refusal says how the refusing agent lets the sender in.
	grant := "hyphae context grant 3 --actor " + a.peerID() + " --role executor"
	if !strings.Contains(got.Error, grant) {
		t.Errorf("refusal %q does not say how to be let in (%q)", got.Error, grant)
	}
	var jobs []wire.JobView
	b.call(t, "job.list", map[string]any{"context": 3}, &jobs)
	if len(jobs) != 0 {
		t.Fatalf("refused job left %d jobs in bob's context", len(jobs))
	}
	db := b.redis.Client(t, 3)
	if n, _ := db.LLen(context.Background(), "msg_in").Result(); n != 0 {
		t.Fatalf("refused job wrote %d entries to msg_in", n)
	}
}

// A job for a context the other agent does not have is refused saying so,
// and how that agent's operator makes it; nothing is written there.
func TestCrossTenantJobToMissingContextIsRefused(t *testing.T) {
	t.Parallel()
	b := startAgent(t, agentOpts{})
	a := startAgent(t, agentOpts{bootstrap: []string{b.addr(t)}})
	grantExecutor(t, b, 3, a.peerID()) // a is known there, but context 4 does not exist

	var j wire.JobView
	a.call(t, "job.run", map[string]any{"to": b.peerID(), "context": 4, "type": "sh", "script": "true"}, &j)
	got := waitJob(t, a, j.ContextID, j.Key)
	if got.Status != "error" || !strings.Contains(got.Error, "context 4 does not exist there") ||
		!strings.Contains(got.Error, "hyphae context create --id 4") {
		t.Fatalf("origin job = %+v, want a refusal naming the missing context and how to create it", got)
	}
	if n, _ := b.redis.Client(t, 4).DBSize(context.Background()).Result(); n != 0 {
		keys, _ := b.redis.Client(t, 4).Keys(context.Background(), "*").Result()
		t.Fatalf("the refused job wrote %d keys in DB 4: %v", n, keys)
	}
}

// job.run with wait returns the ended job in one call, for a local job and
// for one run on another agent.
func TestJobRunWaitReturnsTheEndedJob(t *testing.T) {
	t.Parallel()
	b := startAgent(t, agentOpts{})
	a := startAgent(t, agentOpts{bootstrap: []string{b.addr(t)}})
	grantExecutor(t, b, 2, a.peerID())
	a.call(t, "context.create", map[string]any{"id": 1}, nil)
	for _, to := range []string{"self", b.peerID()} {
		ctxID := map[string]int{"self": 1}[to]
		if ctxID == 0 {
			ctxID = 2
		}
		var j wire.JobView
		a.call(t, "job.run", map[string]any{"to": to, "context": ctxID, "type": "sh",
			"script": `echo "answer=42" >> "$HYPHAE_RESULT"`, "wait": 60}, &j)
		if j.Status != "finished" || j.Result["answer"] != "42" {
			t.Errorf("job.run to %s with wait: %+v", to, j)
		}
	}
}

// Back-to-back jobs to one agent: every result is acknowledged to the
// runner (riding on the next job or on its own), so the runner's result
// messages all end processed — without a retransmission: with a long ack
// timeout the runner's first resend comes 30 s after a send (the backoff's
// cap), after this test's deadline.
func TestResultAcksReachTheRunner(t *testing.T) {
	t.Parallel()
	b := startAgent(t, agentOpts{ackAfter: 10 * time.Minute})
	a := startAgent(t, agentOpts{bootstrap: []string{b.addr(t)}})
	grantExecutor(t, b, 2, a.peerID())
	for range 5 {
		var j wire.JobView
		a.call(t, "job.run", map[string]any{"to": b.peerID(), "context": 2, "type": "sh", "script": "true", "wait": 60}, &j)
		if j.Status != "finished" {
			t.Fatalf("job %+v", j)
		}
	}
	eventually(t, 20*time.Second, "the runner's 5 result messages to be acknowledged", func() bool {
		var ms []wire.MessageView
		b.call(t, "message.list", map[string]any{"context": 2}, &ms)
		processed := 0
		for _, m := range ms {
			if m.Type == "result" && m.Status == "processed" {
				processed++
			}
		}
		return processed == 5
	})
}
