package bridge

import (
	"strings"
	"testing"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/store"
	"github.com/hyphae-run/hyphae/crypto/envelope"
	"github.com/hyphae-run/hyphae/internal/poll"
)

// stopMessage writes, as a raw client (or job.stop) does, a stop message
// for origin job key of context ctxID, sent to dst's context target.
func stopMessage(t *testing.T, s *side, ctxID, id, target uint64, dst, key string) string {
	t.Helper()
	return s.rawMessage(t, ctxID, 9, id, "context_id", u64(target), "message_type", "stop", "dst", dst,
		"origin_job", key, "timeout", "600")
}

// A stop from the job's origin reaches the agent running it, which stops
// the job locally and acknowledges; the stopped job's result then ends the
// origin job (node: TestBridgeStopTravels).
func TestStopTravels(t *testing.T) {
	t.Parallel()
	n := newFakeNet()
	a, b := newSide(t, n, nil), newSide(t, n, nil)
	a.context(t, 1)
	b.grant(t, 2, a.name(), model.RoleExecutor)
	j := a.submit(t, 1, 2, b.name(), "sleep 300", 0)
	remote := b.onlyJob(t, 2)

	msgKey := stopMessage(t, a, 1, 900, 2, b.name(), jobKey(j))
	select {
	case key := <-b.stop:
		if key != jobKey(remote) {
			t.Fatalf("StopLocal(%s), want the received job %s", key, jobKey(remote))
		}
	case <-giveUp():
		t.Fatal("the stop never reached the runner's agent")
	}
	poll.Eventually(t, waitFor, "the stop acknowledged", func() bool {
		return a.msg(t, 1, msgKey).Status == model.MsgProcessed
	})
	// The runner ends the job as stopped; its result goes home.
	if err := b.st.Jobs.CompleteJob(t.Context(), 2, jobKey(remote), 0, model.JobError, model.Hash{"error": "stopped"}); err != nil {
		t.Fatal(err)
	}
	if got := a.waitEnded(t, 1, jobKey(j)); got.Status != model.JobError || got.Error != "stopped" {
		t.Fatalf("origin job = %s %q; want error stopped", got.Status, got.Error)
	}
}

// A stop that reaches the runner's agent after the job ended there is
// answered (an error saying so), not resent until its timeout; the job is
// left as it is (node: TestBridgeStopOfEndedJobIsAnswered).
func TestStopOfEndedJobIsAnswered(t *testing.T) {
	t.Parallel()
	n := newFakeNet()
	a, b := newSide(t, n, nil), newSide(t, n, nil)
	a.context(t, 1)
	b.grant(t, 2, a.name(), model.RoleExecutor)
	j := a.submit(t, 1, 2, b.name(), "true", 0)
	remote := b.onlyJob(t, 2)
	b.finish(t, 2, jobKey(remote), nil)
	a.waitEnded(t, 1, jobKey(j))

	msgKey := stopMessage(t, a, 1, 900, 2, b.name(), jobKey(j))
	poll.Eventually(t, waitFor, "the stop answered", func() bool {
		return a.msg(t, 1, msgKey).Status == model.MsgError
	})
	if why := a.msg(t, 1, msgKey).Error; !strings.Contains(why, "ended") {
		t.Errorf("stop answered with %q, want it to say the job already ended", why)
	}
	if o := a.zcard(t, 1, store.OutboxKey); o != 0 {
		t.Errorf("the outbox still holds %d messages", o)
	}
	if len(b.stop) != 0 {
		t.Error("an ended job was stopped again")
	}
	if got := b.job(t, 2, jobKey(remote)); got.Status != model.JobFinished {
		t.Errorf("remote job = %s, want it finished, untouched", got.Status)
	}
}

// A stop from a peer that did not send the job (here granted executor in
// the context) stops nothing: jobs are found by their sender, so the
// stranger is told there is no such job.
func TestStopFromAStrangerStopsNothing(t *testing.T) {
	t.Parallel()
	n := newFakeNet()
	a, b := newSide(t, n, nil), newSide(t, n, nil)
	x := newStranger(t, n)
	a.context(t, 1)
	b.grant(t, 2, a.name(), model.RoleExecutor)
	b.let(t, 2, x.name(), model.RoleExecutor)
	j := a.submit(t, 1, 2, b.name(), "sleep 300", 0)
	remote := b.onlyJob(t, 2)

	stop := &payload{Ref: "1/message:9:1", OriginCtx: 1, OriginJob: jobKey(j)}
	x.send(t, b.peer(), envelope.TypeStop, 2, stop)
	if r := x.next(t, envelope.TypeError); r.p.AckOf != stop.Ref || !strings.Contains(r.p.Error, "no such job") {
		t.Fatalf("reply to the stranger's stop = %+v", r.p)
	}
	if len(b.stop) != 0 {
		t.Fatal("the stranger's stop stopped a job")
	}
	if got := b.job(t, 2, jobKey(remote)); got.Status.Terminal() {
		t.Fatalf("remote job = %s after the stranger's stop", got.Status)
	}
}

// A chat to a context where its sender is a reader lands on the target's
// msg_in once; a resend of the same message is acknowledged again but
// stored once (node: TestBridgeChatLandsOnce).
func TestChatLandsOnce(t *testing.T) {
	t.Parallel()
	n := newFakeNet()
	a, b := newSide(t, n, nil), newSide(t, n, nil)
	a.context(t, 5)
	b.grant(t, 2, a.name(), model.RoleReader)

	msgKey := a.rawMessage(t, 5, 3, 1, "context_id", "2", "message_type", "chat", "dst", b.name(),
		"message", "hello from a")
	poll.Eventually(t, waitFor, "the chat processed", func() bool {
		return a.msg(t, 5, msgKey).Status == model.MsgProcessed
	})
	inbox := func() []string {
		keys, err := b.db(t, 2).LRange(t.Context(), store.MsgInKey, 0, -1).Result()
		if err != nil {
			t.Fatal(err)
		}
		return keys
	}
	if got := inbox(); len(got) != 1 || b.msg(t, 2, got[0]).Message != "hello from a" {
		t.Fatalf("target msg_in = %v, want one message saying hello", got)
	}
	acks := func() int64 { return a.b.Stats().Snapshot().Received[envelope.TypeAck.String()] }
	before := acks()
	if err := a.db(t, 5).LPush(t.Context(), store.MsgOutKey, msgKey).Err(); err != nil {
		t.Fatal(err)
	}
	poll.Eventually(t, waitFor, "the resend acknowledged", func() bool { return acks() > before })
	if got := inbox(); len(got) != 1 {
		t.Fatalf("after a resend, target msg_in = %v, want the one message", got)
	}
}
