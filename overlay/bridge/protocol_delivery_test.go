package bridge

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/store"
	"github.com/hyphae-run/hyphae/crypto/envelope"
	"github.com/hyphae-run/hyphae/internal/poll"
)

// A job submitted to another agent is materialised there with its origin;
// when it ends, its result comes home and settles the origin's job (result,
// ran_on, reply:<job>) and its message (processed, off the outbox and the
// awaiting list), and the result message is acknowledged back (node:
// TestCrossTenantJobRunsRemotelyAndResultComesBack, TestResultAcksReachTheRunner).
func TestResultComesHomeAndSettlesTheMessage(t *testing.T) {
	t.Parallel()
	n := newFakeNet()
	a, b := newSide(t, n, nil), newSide(t, n, nil)
	a.context(t, 1)
	b.grant(t, 2, a.name(), model.RoleExecutor)

	j := a.submit(t, 1, 2, b.name(), "echo ran", 0)
	remote := b.onlyJob(t, 2)
	if o := remote.Origin(); o.Peer != a.name() || o.Context != 1 || o.Job != jobKey(j) || remote.Script != "echo ran" {
		t.Fatalf("received job = %+v, origin %+v", remote, o)
	}
	b.finish(t, 2, jobKey(remote), map[string]string{"host": "2"})

	got := a.waitEnded(t, 1, jobKey(j))
	if got.Status != model.JobFinished || got.Result["host"] != "2" || got.Extra[model.ExtraRanOn] != b.name() {
		t.Fatalf("origin job = %s %v ran_on %q", got.Status, got.Result, got.Extra[model.ExtraRanOn])
	}
	assertSettled(t, a, 1, jobKey(j), j.MessageKey(), model.JobFinished)
	poll.Eventually(t, waitFor, "the result message acknowledged", func() bool {
		return b.zcard(t, 2, store.OutboxKey) == 0
	})
	results := 0
	for _, m := range listMessages(t, b, 2) {
		if m.MessageType == model.MsgTypeResult {
			results++
			if m.Status != model.MsgProcessed {
				t.Errorf("result message %s, want processed", m.Status)
			}
		}
	}
	if results != 1 {
		t.Errorf("%d result messages at the runner, want 1", results)
	}
}

// assertSettled checks that sent job key ended with status and its message
// key left the outbox and the awaiting list, processed, and that the job's
// waiters were told (reply:<job>).
func assertSettled(t *testing.T, s *side, ctxID uint64, key, msgKey string, status model.JobStatus) {
	t.Helper()
	if m := s.msg(t, ctxID, msgKey); m.Status != model.MsgProcessed {
		t.Errorf("message %s is %s, want processed", msgKey, m.Status)
	}
	if o, w := s.zcard(t, ctxID, store.OutboxKey), s.zcard(t, ctxID, store.AwaitingKey); o != 0 || w != 0 {
		t.Errorf("outbox %d, awaiting_result %d; want both empty", o, w)
	}
	reply, err := s.db(t, ctxID).LRange(context.Background(), store.ReplyKey(key), 0, -1).Result()
	if err != nil || len(reply) != 1 || reply[0] != string(status) {
		t.Errorf("reply:%s = %v, %v; want [%s]", key, reply, err, status)
	}
}

func listMessages(t *testing.T, s *side, ctxID uint64) []*model.Message {
	t.Helper()
	ms, err := s.st.Bus.ListMessages(context.Background(), ctxID)
	if err != nil {
		t.Fatal(err)
	}
	return ms
}

// rawJob writes, as a plain Redis client would, a job message (HSET
// message + LPUSH msg_out) from context ctxID to context target of dst;
// extra are more message field, value pairs. It returns the message and
// job keys.
func rawJob(t *testing.T, s *side, ctxID, caller, msgID, jobID, target uint64, dst, script string, extra ...any) (string, string) {
	t.Helper()
	job := map[string]string{"id": u64(jobID), "caller_id": u64(caller), "script": script, "script_type": "sh", "timeout": "60"}
	list, err := json.Marshal([]map[string]string{job})
	if err != nil {
		t.Fatal(err)
	}
	fields := append([]any{"context_id", u64(target), "message_type", "job", "job", string(list), "dst", dst}, extra...)
	return s.rawMessage(t, ctxID, caller, msgID, fields...), store.JobKey(caller, jobID)
}

// A client that only writes a message and pushes it on msg_out gets the
// job run elsewhere and its result on its own job:<c>:<id> (reply list
// and all), the message processed (node: TestBridgeRawRedisPath).
func TestRawMessageResultComesHome(t *testing.T) {
	t.Parallel()
	n := newFakeNet()
	a, b := newSide(t, n, nil), newSide(t, n, nil)
	a.context(t, 5)
	b.grant(t, 2, a.name(), model.RoleExecutor)

	msgKey, key := rawJob(t, a, 5, 7, 1, 11, 2, b.name(), "echo hello")
	remote := b.onlyJob(t, 2)
	b.finish(t, 2, jobKey(remote), map[string]string{"host": "2"})
	if got := a.waitEnded(t, 5, key); got.Status != model.JobFinished || got.Result["host"] != "2" {
		t.Fatalf("%s = %s %v", key, got.Status, got.Result)
	}
	assertSettled(t, a, 5, key, msgKey, model.JobFinished)
}

// A job whose acks are lost is sent again until one gets through; the
// target recognises the resends, so the job is materialised once, and its
// result settles it at home (node: TestBridgeTargetDownThenUp).
func TestLostAcksCostRetransmissionsOnly(t *testing.T) {
	t.Parallel()
	n := newFakeNet()
	fast := func(c *Config) { c.TimeoutAck = 100 * time.Millisecond }
	a, b := newSide(t, n, fast), newSide(t, n, fast)
	a.context(t, 1)
	b.grant(t, 2, a.name(), model.RoleExecutor)
	jobsToB := func(f fakeFrame) bool { return f.to == b.peer() && f.is(envelope.TypeJob) }
	n.setRule(func(f fakeFrame) frameFate {
		if f.from == b.peer() {
			return frameDrop // b's acks are lost
		}
		return frameDeliver
	})

	j := a.submit(t, 1, 2, b.name(), "true", 0)
	poll.Eventually(t, waitFor, "two resends of the job", func() bool { return n.count(jobsToB) >= 3 })
	n.setRule(nil)
	poll.Eventually(t, waitFor, "the job acknowledged", func() bool {
		return a.msg(t, 1, j.MessageKey()).Status == model.MsgAcknowledged
	})
	if js := b.jobs(t, 2); len(js) != 1 {
		t.Fatalf("%d sends made %d jobs, want 1", n.count(jobsToB), len(js))
	}
	if r := a.b.Stats().Snapshot().Retransmits; r < 2 {
		t.Errorf("retransmits = %d, want at least 2", r)
	}
	b.finish(t, 2, jobKey(b.onlyJob(t, 2)), nil)
	if got := a.waitEnded(t, 1, jobKey(j)); got.Status != model.JobFinished {
		t.Fatalf("origin job = %s %q", got.Status, got.Error)
	}
	assertSettled(t, a, 1, jobKey(j), j.MessageKey(), model.JobFinished)
}

// A message nobody acknowledges is retransmitted with backoff and given up
// after its timeout: it ends with status error and a reason, and so does
// its job; the outbox lets it go (node: TestBridgeRawMessageGivesUp). Both
// ways in: Submit (the bus timeout) and a raw client's message without
// created_at (its own timeout). Timeouts count in whole seconds from
// created_at, so the one here lasts 2 to 3 s, many ack timeouts.
func TestUnacknowledgedMessageGivesUp(t *testing.T) {
	t.Parallel()
	n := newFakeNet()
	a := newSide(t, n, func(c *Config) { c.TimeoutAck, c.Timeout = 100*time.Millisecond, 3*time.Second })
	a.context(t, 1)
	away := newTestIdentity(t).PeerID().String()

	j := a.submit(t, 1, 2, away, "true", 0)
	rawMsg, rawJobKey := rawJob(t, a, 1, 9, 1, 1, 2, away, "true", "timeout", "3")
	for _, c := range []struct{ job, msg string }{{jobKey(j), j.MessageKey()}, {rawJobKey, rawMsg}} {
		poll.Eventually(t, waitFor, "the bridge to record "+c.job, func() bool {
			return a.db(t, 1).Exists(context.Background(), c.job).Val() == 1
		})
		got := a.waitEnded(t, 1, c.job)
		if got.Status != model.JobError || !strings.Contains(got.Error, "not acknowledged by "+away) {
			t.Errorf("job %s = %s %q; want error: not acknowledged", c.job, got.Status, got.Error)
		}
		m := a.msg(t, 1, c.msg)
		if m.Status != model.MsgError || m.Error == "" {
			t.Errorf("message %s = %s %q; want error with a reason", c.msg, m.Status, m.Error)
		}
		if sends, _ := strconv.Atoi(m.Extra[model.ExtraSends]); sends < 2 {
			t.Errorf("message %s was sent %d times, want it retransmitted", c.msg, sends)
		}
	}
	if o := a.zcard(t, 1, store.OutboxKey); o != 0 {
		t.Errorf("the outbox still holds %d messages", o)
	}
}

// A job acknowledged whose result does not come within timeout_result
// ends error at home saying so; the late result is acknowledged (so its
// runner stops resending) but changes nothing (node:
// TestBridgeResultOverdueFailsJob).
func TestOverdueResultFailsTheJob(t *testing.T) {
	t.Parallel()
	n := newFakeNet()
	a, b := newSide(t, n, nil), newSide(t, n, nil)
	a.context(t, 3)
	b.grant(t, 2, a.name(), model.RoleExecutor)

	msgKey, key := rawJob(t, a, 3, 7, 1, 21, 2, b.name(), "true", "timeout_result", "1")
	remote := b.onlyJob(t, 2)
	got := a.waitEnded(t, 3, key)
	if got.Status != model.JobError || !strings.Contains(got.Error, "no result from") {
		t.Fatalf("origin job = %s %q; want error: no result", got.Status, got.Error)
	}
	poll.Eventually(t, waitFor, "the message to end error", func() bool {
		return a.msg(t, 3, msgKey).Status == model.MsgError
	})
	b.finish(t, 2, jobKey(remote), map[string]string{"late": "yes"})
	poll.Eventually(t, waitFor, "the late result acknowledged", func() bool {
		return b.zcard(t, 2, store.OutboxKey) == 0
	})
	if now := a.job(t, 3, key); now.Status != model.JobError || now.Result["late"] != "" {
		t.Fatalf("the late result changed the origin job to %s %v", now.Status, now.Result)
	}
}

// An ack that arrives after the job's result (the network reordered them)
// changes nothing: the message stays processed, nothing awaits a result.
func TestAckAfterTheResultChangesNothing(t *testing.T) {
	t.Parallel()
	n := newFakeNet()
	// One receive worker: frames are handled in the order they arrive, so
	// a frame sent after the late ack is handled after it.
	a := newSide(t, n, func(c *Config) { c.Workers = 1 })
	b := newSide(t, n, func(c *Config) { c.AckDelay = -1 }) // acks at once, alone
	x := newStranger(t, n)
	a.context(t, 1)
	b.grant(t, 2, a.name(), model.RoleExecutor)
	isAck := func(f fakeFrame) bool { return f.from == b.peer() && f.is(envelope.TypeAck) }
	n.setRule(func(f fakeFrame) frameFate {
		if isAck(f) {
			return frameHold
		}
		return frameDeliver
	})

	j := a.submit(t, 1, 2, b.name(), "true", 0)
	remote := b.onlyJob(t, 2)
	poll.Eventually(t, waitFor, "b's ack held", func() bool { return n.heldCount() == 1 })
	b.finish(t, 2, jobKey(remote), nil)
	if got := a.waitEnded(t, 1, jobKey(j)); got.Status != model.JobFinished {
		t.Fatalf("origin job = %s %q", got.Status, got.Error)
	}
	if n.release(isAck) == 0 {
		t.Fatal("no ack was held")
	}
	x.send(t, a.peer(), envelope.TypeAck, 1, &payload{AckOf: "1/message:999:999"}) // a marker
	poll.Eventually(t, waitFor, "the late ack handled (the marker after it is)", func() bool {
		return a.rejected("ack_from_stranger") == 1
	})
	assertSettled(t, a, 1, jobKey(j), j.MessageKey(), model.JobFinished)
	if a.tr.penalized(b.peer(), "ack_from_stranger") != 0 {
		t.Error("the late ack of the job's own runner was refused")
	}
}

// A job that starts at its target shows as started at home: the target's
// ack says so (node: TestRemoteJobShowsStartedAtTheOrigin).
func TestStartedAckMovesTheOriginJob(t *testing.T) {
	t.Parallel()
	n := newFakeNet()
	a, b := newSide(t, n, nil), newSide(t, n, nil)
	a.context(t, 1)
	b.grant(t, 2, a.name(), model.RoleExecutor)

	j := a.submit(t, 1, 2, b.name(), "true", 0)
	remote := b.onlyJob(t, 2)
	poll.Eventually(t, waitFor, "the job acknowledged", func() bool {
		return a.msg(t, 1, j.MessageKey()).Status == model.MsgAcknowledged
	})
	if s := a.job(t, 1, jobKey(j)).Status; s != model.JobDispatched {
		t.Fatalf("queued there, the job is %s at home; want dispatched", s)
	}
	b.b.JobStarted(2, remote) // the runner's start hook
	poll.Eventually(t, waitFor, "the job started at home", func() bool {
		return a.job(t, 1, jobKey(j)).Status == model.JobStarted
	})
	b.finish(t, 2, jobKey(remote), nil)
	if got := a.waitEnded(t, 1, jobKey(j)); got.Status != model.JobFinished {
		t.Fatalf("origin job = %s %q", got.Status, got.Error)
	}
}
