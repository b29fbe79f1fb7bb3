package bridge

import (
	"context"
	"testing"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/store"
	"github.com/hyphae-run/hyphae/crypto/envelope"
	"github.com/hyphae-run/hyphae/internal/poll"
)

// Only the peer a job went to may answer for it. A stranger's ack (even
// one saying the job started) and its refusal of the job's message change
// nothing: the job and its message stay dispatched, in the outbox, and
// each answer is counted and held against its sender (node:
// TestImpostorCannotAnswerForAWaitingJob).
func TestAnswersFromAStrangerChangeNothing(t *testing.T) {
	t.Parallel()
	n := newFakeNet()
	a := newSide(t, n, nil)
	x := newStranger(t, n)
	a.context(t, 1)
	away := newTestIdentity(t).PeerID().String() // never on the network

	j := a.submit(t, 1, 2, away, "true", 0)
	msgKey := j.MessageKey()
	ref := makeRef(1, msgKey)
	x.send(t, a.peer(), envelope.TypeAck, 1, &payload{AckOf: ref, Status: statusStarted})
	x.send(t, a.peer(), envelope.TypeError, 1, &payload{AckOf: ref, Error: "refused by the stranger"})
	// Each refusal is counted, then held against its sender.
	poll.Eventually(t, waitFor, "the stranger's answers refused and held against it", func() bool {
		return a.tr.penalized(x.id.PeerID(), "ack_from_stranger") == 1 &&
			a.tr.penalized(x.id.PeerID(), "error_from_stranger") == 1
	})
	if r1, r2 := a.rejected("ack_from_stranger"), a.rejected("error_from_stranger"); r1 != 1 || r2 != 1 {
		t.Errorf("refusals counted: ack_from_stranger %d, error_from_stranger %d; want 1 each", r1, r2)
	}
	if now := a.job(t, 1, jobKey(j)); now.Status != model.JobDispatched || now.Error != "" {
		t.Fatalf("after the stranger's answers the job is %s %q", now.Status, now.Error)
	}
	if m := a.msg(t, 1, msgKey); m.Status != model.MsgDispatched {
		t.Fatalf("after the stranger's answers the job message is %s", m.Status)
	}
	if _, err := a.db(t, 1).ZScore(context.Background(), store.OutboxKey, msgKey).Result(); err != nil {
		t.Fatalf("the job message left the outbox: %v", err)
	}
}

// A result from a peer the job was not sent to changes nothing (it is
// refused as unexpected_result, held against its sender and acknowledged,
// so a runner given up on stops resending); the result of the peer the
// job went to still lands (node: TestImpostorRunnerGetsNothing).
func TestResultFromAStrangerChangesNothing(t *testing.T) {
	t.Parallel()
	n := newFakeNet()
	a, b := newSide(t, n, nil), newSide(t, n, nil)
	x := newStranger(t, n)
	a.context(t, 1)
	b.grant(t, 2, a.name(), model.RoleExecutor)

	j := a.submit(t, 1, 2, b.name(), "true", 0)
	remote := b.onlyJob(t, 2)
	forged := &payload{Ref: "1/message:9:9", OriginCtx: 1, OriginJob: jobKey(j), Attempt: 1,
		Status: string(model.JobFinished), Result: map[string]string{"who": "stranger"}}
	x.send(t, a.peer(), envelope.TypeResult, 1, forged)
	if r := x.next(t, envelope.TypeAck); r.p.AckOf != forged.Ref {
		t.Fatalf("the stranger got an ack of %q, want %q", r.p.AckOf, forged.Ref)
	}
	if a.rejected("unexpected_result") != 1 || a.tr.penalized(x.id.PeerID(), "unexpected_result") != 1 {
		t.Fatalf("forged result: counted %d, penalized %d; want 1 each",
			a.rejected("unexpected_result"), a.tr.penalized(x.id.PeerID(), "unexpected_result"))
	}
	if now := a.job(t, 1, jobKey(j)); now.Status.Terminal() || now.Result["who"] != "" {
		t.Fatalf("after the forged result the job is %s %v", now.Status, now.Result)
	}

	b.finish(t, 2, jobKey(remote), map[string]string{"who": "b"})
	if got := a.waitEnded(t, 1, jobKey(j)); got.Status != model.JobFinished || got.Result["who"] != "b" {
		t.Fatalf("origin job = %s %v; want b's result", got.Status, got.Result)
	}
}

// A job received again (its ack was lost, so its sender resent it: the
// same ref in a new envelope) is acknowledged again at once and
// materialised once: the dedupe answers with the first job's key
// (docs/design.md, "Between agents": effectively-once).
func TestResentJobIsProcessedOnce(t *testing.T) {
	t.Parallel()
	n := newFakeNet()
	b := newSide(t, n, nil)
	x := newStranger(t, n)
	b.grant(t, 2, x.name(), model.RoleExecutor)

	p := jobFrom("1/message:1:1", "echo once")
	x.send(t, b.peer(), envelope.TypeJob, 2, p)
	first := b.onlyJob(t, 2)
	if r := x.next(t, envelope.TypeAck); r.p.AckOf != p.Ref {
		t.Fatalf("ack of %q, want %q", r.p.AckOf, p.Ref)
	}
	x.send(t, b.peer(), envelope.TypeJob, 2, p) // a new envelope id: no replay
	if r := x.next(t, envelope.TypeAck); r.p.AckOf != p.Ref {
		t.Fatalf("second ack of %q, want %q", r.p.AckOf, p.Ref)
	}
	if js := b.jobs(t, 2); len(js) != 1 {
		t.Fatalf("the resend made %d jobs, want 1", len(js))
	}
	key, err := b.st.Bus.InboundJob(context.Background(), 2, x.name(), p.OriginCtx, p.OriginJob)
	if err != nil || key != jobKey(first) {
		t.Errorf("inbound job of the origin = %q, %v; want the first key %s", key, err, jobKey(first))
	}
	if n := b.llen(t, 2, store.MsgInKey); n != 1 {
		t.Errorf("msg_in has %d entries, want 1", n)
	}
	if n := b.llen(t, 2, store.QueueKey("sh")); n != 1 {
		t.Errorf("queue:sh has %d jobs, want 1", n)
	}
	if r := b.rejected("replay"); r != 0 {
		t.Errorf("the resend was taken for a replay (%d)", r)
	}
}

// An agent killed after it published a job and before it recorded the
// send (sendWhileWriting) holds the job unsent at its restart, and the
// runner's result may come before the job is sent again. That result is
// not acknowledged (an ack would end the runner's resends while the job
// waited here for good): its resend, once the send is recorded, lands
// (e2e: TestFlowSupervisorKill9MidFlowResumes).
func TestResultBeforeItsSendIsRecordedComesAgain(t *testing.T) {
	t.Parallel()
	n := newFakeNet()
	a := newSide(t, n, nil)
	x := newStranger(t, n) // the runner
	a.context(t, 1)
	ctx := context.Background()
	j := &model.RunnerJob{ID: 50, CallerID: 7, ContextID: 1, Script: "true", ScriptType: "sh",
		Status: model.JobDispatched, Attempt: 1, Runner: x.name()}
	if err := a.st.Jobs.SaveJob(ctx, j); err != nil {
		t.Fatal(err)
	}
	res := &payload{Ref: "2/message:3:4", OriginCtx: 1, OriginJob: jobKey(j), Attempt: 1,
		Status: string(model.JobFinished), Result: map[string]string{"ran": "x"}}
	x.send(t, a.peer(), envelope.TypeResult, 1, res)
	poll.Eventually(t, waitFor, "the early result answered", func() bool { return a.rejected("result_before_send") == 1 })
	select {
	case r := <-x.got:
		t.Fatalf("the early result got a %s (of %q)", r.env.Type, r.p.AckOf)
	default:
	}
	if now := a.job(t, 1, jobKey(j)); now.Status.Terminal() {
		t.Fatalf("the early result ended the job: %s", now.Status)
	}

	// The restart sends the job again (msg_out), recording the send.
	list := `[{"id":"50","caller_id":"7","script":"true","script_type":"sh"}]`
	a.rawMessage(t, 1, 7, 60, "context_id", "2", "message_type", "job", "job", list, "dst", x.name())
	if r := x.next(t, envelope.TypeJob); r.p.OriginJob != jobKey(j) {
		t.Fatalf("the job sent again is %q, want %s", r.p.OriginJob, jobKey(j))
	}
	x.send(t, a.peer(), envelope.TypeResult, 1, res) // the runner's resend
	if r := x.next(t, envelope.TypeAck); r.p.AckOf != res.Ref {
		t.Fatalf("ack of %q, want %q", r.p.AckOf, res.Ref)
	}
	if got := a.waitEnded(t, 1, jobKey(j)); got.Status != model.JobFinished || got.Result["ran"] != "x" {
		t.Fatalf("the job = %s %v, want finished with the runner's result", got.Status, got.Result)
	}
}
