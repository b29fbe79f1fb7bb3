package node_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hyphae-run/hyphae/context/store"
	"github.com/hyphae-run/hyphae/node/api/wire"
)

// deadLetters lists context ctxID's dead letters through the API.
func deadLetters(t *testing.T, a *agent, ctxID int) []store.DeadLetter {
	t.Helper()
	var dl []store.DeadLetter
	a.call(t, "deadletter.list", map[string]any{"context": ctxID}, &dl)
	return dl
}

// A job that fails quarantine.after_failures times in a row is not run
// again, though it has retries left: it ends error, quarantined, in the
// dead letters, counted; retried from there once fixed, it runs again.
func TestJobFailingInARowIsQuarantined(t *testing.T) {
	t.Parallel()
	a := startAgent(t, agentOpts{})
	a.Store().SetQuarantineAfter(2)
	a.call(t, "context.create", map[string]any{"id": 1}, nil)
	fixed := filepath.Join(t.TempDir(), "fixed")
	var j wire.JobView
	a.call(t, "job.run", map[string]any{"context": 1, "type": "sh", "retries": 5,
		"script": fmt.Sprintf("test -f %q || exit 3", fixed)}, &j)
	got := waitJob(t, a, 1, j.Key)
	if got.Status != "error" || got.Attempt != 3 || !strings.Contains(got.Error, "quarantined: 2 attempts failed in a row") {
		t.Fatalf("job %+v; want error at attempt 3, quarantined after 2 failures in a row", got)
	}
	dl := deadLetters(t, a, 1)
	if len(dl) != 1 || dl[0].Key != j.Key || dl[0].Class != store.DeadFailures || !strings.Contains(dl[0].Reason, "exit") {
		t.Fatalf("dead letters %+v; want %s, class failures, with the last error", dl, j.Key)
	}
	if v := metricValue(t, a, `hyphae_dead_letters_total{context="1",reason="failures"}`); v != 1 {
		t.Fatalf("hyphae_dead_letters_total{reason=failures} = %v; want 1", v)
	}
	if err := os.WriteFile(fixed, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	var r wire.DeadLetterRetried
	a.call(t, "deadletter.retry", wire.DeadLetterRef{Context: 1, Key: j.Key}, &r)
	if r.Job == nil || r.Job.Attempt != 4 {
		t.Fatalf("deadletter.retry answered %+v; want the job at attempt 4", r)
	}
	if again := waitJob(t, a, 1, j.Key); again.Status != "finished" {
		t.Fatalf("retried job %+v; want finished (its count of failures starts afresh)", again)
	}
	if dl := deadLetters(t, a, 1); len(dl) != 0 {
		t.Fatalf("dead letters after the retry: %+v; want none", dl)
	}
}

// A malformed message on msg_out goes to the dead letters with the reason
// (it used to go back on msg_out every second, for ever), is counted, is
// refused a retry while still malformed, and runs once fixed and retried.
func TestMalformedMessageIsQuarantinedAndRetried(t *testing.T) {
	t.Parallel()
	a := startAgent(t, agentOpts{})
	a.call(t, "context.create", map[string]any{"id": 1}, nil)
	msgKey, jobKey := rawJobMessage(t, a, 1, 1, 900, 901, 1, a.peerID(), "sh", "echo fine",
		"timeout", "soon")
	var dl []store.DeadLetter
	eventually(t, 30*time.Second, "the malformed message in the dead letters", func() bool {
		dl = deadLetters(t, a, 1)
		return len(dl) == 1
	})
	if dl[0].Key != msgKey || dl[0].Queue != "msg_out" || dl[0].Class != store.DeadInvalid || !strings.Contains(dl[0].Reason, "timeout") {
		t.Fatalf("dead letter %+v; want %s from msg_out, invalid, naming the timeout field", dl[0], msgKey)
	}
	ctx := context.Background()
	rdb := a.redis.Client(t, 1)
	if n := rdb.LLen(ctx, "msg_out").Val() + rdb.LLen(ctx, store.MsgOutProcessingKey).Val(); n != 0 {
		t.Fatalf("msg_out and its processing list hold %d entries; want the message out of both", n)
	}
	if st := rdb.HGet(ctx, msgKey, "status").Val(); st != "error" {
		t.Fatalf("message status %q; want error", st)
	}
	if v := metricValue(t, a, `hyphae_dead_letters_total{context="1",reason="invalid"}`); v != 1 {
		t.Fatalf("hyphae_dead_letters_total{reason=invalid} = %v; want 1", v)
	}
	err := a.client.Call(ctx, "deadletter.retry", wire.DeadLetterRef{Context: 1, Key: msgKey}, nil)
	if err == nil || !strings.Contains(err.Error(), "timeout") {
		t.Fatalf("retry of the still malformed message: %v; want a refusal naming the timeout field", err)
	}
	if err := rdb.HSet(ctx, msgKey, "timeout", "60").Err(); err != nil {
		t.Fatal(err)
	}
	var r wire.DeadLetterRetried
	a.call(t, "deadletter.retry", wire.DeadLetterRef{Context: 1, Key: msgKey}, &r)
	if r.Kind != "message" || r.Queue != "msg_out" {
		t.Fatalf("deadletter.retry answered %+v; want the message back on msg_out", r)
	}
	if j := waitRawJob(t, a, 1, jobKey); j.Status != "finished" {
		t.Fatalf("the fixed message's job %+v; want finished", j)
	}
	if dl := deadLetters(t, a, 1); len(dl) != 0 {
		t.Fatalf("dead letters after the retry: %+v; want none", dl)
	}
}
