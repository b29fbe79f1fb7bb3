package bridge

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/store"
	"github.com/hyphae-run/hyphae/internal/poll"
)

// outage is an origin a that sent job j to runner b, which acknowledged it;
// cut and mend partition the two (frames between them are dropped, and
// each sees the other down, then up, as presence would report).
type outage struct {
	n    *fakeNet
	a, b *side
	j    *model.RunnerJob
	// remote is b's copy of j.
	remote *model.RunnerJob
}

func newOutage(t *testing.T, tweakOrigin func(*Config)) *outage {
	t.Helper()
	o := &outage{n: newFakeNet()}
	o.a, o.b = newSide(t, o.n, tweakOrigin), newSide(t, o.n, nil)
	o.a.context(t, 1)
	o.b.grant(t, 2, o.a.name(), model.RoleExecutor)
	o.j = o.a.submit(t, 1, 2, o.b.name(), "echo ran", 0)
	o.remote = o.b.onlyJob(t, 2)
	poll.Eventually(t, waitFor, "the job acknowledged (awaiting its result)", func() bool {
		return o.a.zcard(t, 1, store.AwaitingKey) == 1
	})
	return o
}

func (o *outage) cut() {
	a, b := o.a.peer(), o.b.peer()
	o.n.setRule(func(f fakeFrame) frameFate {
		if (f.from == a && f.to == b) || (f.from == b && f.to == a) {
			return frameDrop
		}
		return frameDeliver
	})
	o.a.tr.setPeer(&model.Peer{PeerID: o.b.name(), State: model.PeerDown})
	o.b.tr.setPeer(&model.Peer{PeerID: o.a.name(), State: model.PeerDown})
}

func (o *outage) mend() {
	o.n.setRule(nil)
	o.a.tr.setPeer(&model.Peer{PeerID: o.b.name(), State: model.PeerUp})
	o.b.tr.setPeer(&model.Peer{PeerID: o.a.name(), State: model.PeerUp})
}

// A job whose runner is cut off past the grace becomes unknown, not an
// error: its status stays as it was and runner_state says unreachable.
// The runner finishes it during the cut; once the link is back, its
// result is accepted and written like any other, and the mark goes.
func TestUnreachableRunnerJobIsUnknownThenReconciled(t *testing.T) {
	o := newOutage(t, func(c *Config) { c.RunnerGrace, c.RunnerLostAfter = time.Millisecond, time.Hour })
	o.cut()
	key := jobKey(o.j)
	poll.Eventually(t, waitFor, "the job to become unknown", func() bool {
		_, ok := o.a.job(t, 1, key).Unreachable()
		return ok
	})
	if got := o.a.job(t, 1, key); got.Status.Terminal() || got.Extra[model.ExtraUnreachableSince] == "" {
		t.Fatalf("unknown job = %s, error %q, fields %v; want still in flight with unreachable_since", got.Status, got.Error, got.Extra)
	}
	o.b.finish(t, 2, jobKey(o.remote), map[string]string{"x": "1"}) // during the cut: its result is lost
	o.mend()
	got := o.a.waitEnded(t, 1, key)
	if got.Status != model.JobFinished || got.Result["x"] != "1" {
		t.Fatalf("after the runner came back the job is %s %v (error %q), want finished with its result", got.Status, got.Result, got.Error)
	}
	assertSettled(t, o.a, 1, key, o.j.MessageKey(), model.JobFinished)
	poll.Eventually(t, waitFor, "the unknown mark cleared", func() bool {
		return o.a.job(t, 1, key).Extra[model.ExtraRunnerState] == ""
	})
}

// Past runner_lost_after the job is given up on: error, saying it may
// still have run there. Its result, which comes once the link is back, is
// kept as late_result and changes neither its status nor its error; the
// runner's result message is acknowledged, so it stops resending it.
func TestLostRunnerJobKeepsItsLateResult(t *testing.T) {
	o := newOutage(t, func(c *Config) { c.RunnerGrace, c.RunnerLostAfter = time.Millisecond, 50*time.Millisecond })
	o.cut()
	key := jobKey(o.j)
	got := o.a.waitEnded(t, 1, key)
	want := "runner " + o.b.name() + " unreachable for "
	if got.Status != model.JobError || !strings.HasPrefix(got.Error, want) ||
		!strings.HasSuffix(got.Error, ": lost (it may still have run there; a retry may run it twice)") {
		t.Fatalf("lost job = %s %q, want error %q… lost (it may still have run there; a retry may run it twice)", got.Status, got.Error, want)
	}
	// The message ends in a second write, after the job's waiters woke.
	var m *model.Message
	poll.Eventually(t, waitFor, "its message ended", func() bool {
		m = o.a.msg(t, 1, o.j.MessageKey())
		return m.Status == model.MsgError
	})
	if m.Error != got.Error {
		t.Errorf("its message = %s %q, want error with the job's reason", m.Status, m.Error)
	}
	o.b.finish(t, 2, jobKey(o.remote), map[string]string{"x": "1"})
	o.mend()
	var late *model.LateResult
	poll.Eventually(t, waitFor, "the late result kept", func() bool {
		late = o.a.job(t, 1, key).LateResult()
		return late != nil
	})
	if late.From != o.b.name() || late.Status != model.JobFinished || late.Result["x"] != "1" || late.Attempt != o.j.Attempt {
		t.Errorf("late_result = %+v, want b's finished x=1 of attempt %d", late, o.j.Attempt)
	}
	if now := o.a.job(t, 1, key); now.Status != model.JobError || now.Error != got.Error || len(now.Result) != 0 {
		t.Errorf("the late result changed the job: %s %q %v", now.Status, now.Error, now.Result)
	}
	if n := o.a.b.Stats().Snapshot().LateResults; n != 1 {
		t.Errorf("late results counted %d, want 1", n)
	}
	poll.Eventually(t, waitFor, "the runner's result acknowledged", func() bool {
		return o.b.zcard(t, 2, store.OutboxKey) == 0
	})
}

// A job submitted while its runner is away waits in the outbox with a
// backoff that has grown; when the runner comes back, the job is sent at
// once, because of the return: it reaches the runner before its next
// scheduled resend, and the bridge counts it as resent on the return.
func TestReturnSendsTheBacklogAtOnce(t *testing.T) {
	n := newFakeNet()
	a := newSide(t, n, func(c *Config) { c.TimeoutAck = time.Hour }) // a resend is 30 s (the cap) away
	b := newSide(t, n, nil)
	a.context(t, 1)
	b.grant(t, 2, a.name(), model.RoleExecutor)
	o := &outage{n: n, a: a, b: b}
	o.cut()
	j := a.submit(t, 1, 2, b.name(), "echo ran", 0)
	var due float64
	poll.Eventually(t, waitFor, "the job's first send done and its resend scheduled", func() bool {
		m := a.msg(t, 1, j.MessageKey())
		s, err := a.db(t, 1).ZScore(context.Background(), store.OutboxKey, j.MessageKey()).Result()
		due = s
		return err == nil && m.Extra[model.ExtraSends] == "1"
	})
	o.mend()
	b.onlyJob(t, 2)
	if arrived := time.Now(); float64(arrived.UnixMilli()) >= due {
		t.Fatalf("the job reached the runner at %v, not before its scheduled resend at %v: the return did not send it",
			arrived.Format(time.StampMilli), time.UnixMilli(int64(due)).Format(time.StampMilli))
	}
	if got := a.b.Stats().Snapshot().ResentOnReturn; got != 1 {
		t.Errorf("resent on return = %d, want 1", got)
	}
	if m := a.msg(t, 1, j.MessageKey()); m.Extra[model.ExtraBackoffFrom] != "1" {
		t.Errorf("backoff_from = %q, want 1 (the backoff starts again from the return)", m.Extra[model.ExtraBackoffFrom])
	}
}

// A flow job given up on at runner b and sent to another runner as a new
// attempt no longer takes b's results; but one that comes from b for the
// lost attempt is kept as late_result (b ran it after all), acknowledged,
// and changes nothing else — not the new attempt, not its runner.
func TestLateResultFromAReplacedRunnerIsKept(t *testing.T) {
	o := newOutage(t, nil)
	key := jobKey(o.j)
	other := newTestIdentity(t).PeerID().String()
	// What the scheduler's rerun leaves: the lost attempt recorded, the job
	// at a new attempt sent elsewhere.
	lost := model.LostRunnerFields(o.b.name(), o.j.Attempt, "attempt 1: lost")
	lost["attempt"], lost["runner"] = "7", other
	if err := o.a.db(t, 1).HSet(context.Background(), key, lost).Err(); err != nil {
		t.Fatal(err)
	}
	o.a.b.sent.moved(1, key, other)
	o.b.finish(t, 2, jobKey(o.remote), map[string]string{"x": "1"})
	var late *model.LateResult
	poll.Eventually(t, waitFor, "the late result kept", func() bool {
		late = o.a.job(t, 1, key).LateResult()
		return late != nil
	})
	if late.From != o.b.name() || late.Result["x"] != "1" {
		t.Errorf("late_result = %+v", late)
	}
	if j := o.a.job(t, 1, key); j.Status.Terminal() || j.Attempt != 7 || j.Runner != other {
		t.Errorf("the late result touched the new attempt: %s attempt %d runner %s", j.Status, j.Attempt, j.Runner)
	}
	if o.a.rejected("unexpected_result") != 0 {
		t.Error("the lost runner's result was counted as unexpected")
	}
	poll.Eventually(t, waitFor, "the runner's result acknowledged", func() bool {
		return o.b.zcard(t, 2, store.OutboxKey) == 0
	})
}

// A job that reached its runner but whose acks were all lost is given up
// on at its origin after the bus timeout ("not acknowledged"); the result
// the runner sends later is kept as late_result, not dropped, and the
// job's status stays error.
func TestGivenUpJobKeepsItsLateResult(t *testing.T) {
	n := newFakeNet()
	a := newSide(t, n, func(c *Config) { c.TimeoutAck, c.Timeout = 100*time.Millisecond, time.Second })
	b := newSide(t, n, nil)
	a.context(t, 1)
	b.grant(t, 2, a.name(), model.RoleExecutor)
	ap, bp := a.peer(), b.peer()
	n.setRule(func(f fakeFrame) frameFate { // b's answers do not reach a
		if f.from == bp && f.to == ap {
			return frameDrop
		}
		return frameDeliver
	})
	j := a.submit(t, 1, 2, b.name(), "echo ran", 0)
	remote := b.onlyJob(t, 2)
	got := a.waitEnded(t, 1, jobKey(j))
	if got.Status != model.JobError || !strings.Contains(got.Error, "not acknowledged by "+b.name()) {
		t.Fatalf("origin job = %s %q; want error: not acknowledged", got.Status, got.Error)
	}
	n.setRule(nil)
	b.finish(t, 2, jobKey(remote), map[string]string{"x": "1"})
	var late *model.LateResult
	poll.Eventually(t, waitFor, "the late result kept", func() bool {
		late = a.job(t, 1, jobKey(j)).LateResult()
		return late != nil
	})
	if late.From != b.name() || late.Result["x"] != "1" {
		t.Errorf("late_result = %+v", late)
	}
	if now := a.job(t, 1, jobKey(j)); now.Status != model.JobError || now.Error != got.Error {
		t.Errorf("the late result changed the job: %s %q", now.Status, now.Error)
	}
}
