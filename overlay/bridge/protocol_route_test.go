package bridge

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/crypto/envelope"
	"github.com/hyphae-run/hyphae/internal/poll"
)

// A job whose runner is left to the agent goes only to a runner registered
// in its context, even while that runner is busy and an unregistered peer
// announces itself idle with the type; a type only that peer announces
// goes to the registered runner whose record sets no types, and is
// refused, saying how to register a runner, where records limit types (node:
// TestImpostorRunnerGetsNothing).
func TestJobToAnyGoesOnlyToARegisteredRunner(t *testing.T) {
	t.Parallel()
	n := newFakeNet()
	a, b := newSide(t, n, nil), newSide(t, n, nil)
	x := newStranger(t, n)
	a.context(t, 1)
	a.context(t, 2)
	b.grant(t, 1, a.name(), model.RoleExecutor)
	if err := a.st.Registry.CreateRunner(context.Background(), 1, &model.Runner{Pubkey: b.name()}); err != nil {
		t.Fatal(err)
	}
	a.tr.setPeer(&model.Peer{PeerID: b.name(), State: model.PeerUp, ScriptTypes: []string{"sh"}, Load: 1, Capacity: 1})
	a.tr.setPeer(&model.Peer{PeerID: x.name(), State: model.PeerUp, ScriptTypes: []string{"sh", "special"}, Capacity: 100})

	j := a.submit(t, 1, 1, "", "true", 0)
	if remote := b.onlyJob(t, 1); remote.Origin().Job != jobKey(j) {
		t.Fatalf("b got %+v, want the job", remote.Origin())
	}
	if got := a.job(t, 1, jobKey(j)); got.Runner != b.name() {
		t.Errorf("job to any went to %q, want the registered runner %s", got.Runner, b.name())
	}

	// b's record sets no types: the record is the authority, so a type b
	// does not announce (an external worker there may serve it) still
	// goes to b, never to x, which announces it but is not registered.
	special := &model.RunnerJob{CallerID: 1, Script: "true", ScriptType: "special", Status: model.JobDispatched, Attempt: 1}
	if _, err := a.b.Submit(context.Background(), 1, 1, "", special, 0, false); err != nil {
		t.Fatalf("a job of a type b's record allows: %v", err)
	}
	poll.Eventually(t, waitFor, "the special job at b", func() bool { return len(b.jobs(t, 1)) == 2 })
	if got := a.job(t, 1, jobKey(special)); got.Runner != b.name() {
		t.Errorf("the special job went to %q, want the registered runner %s", got.Runner, b.name())
	}
	if jobs := n.count(func(f fakeFrame) bool { return f.to == x.id.PeerID() && f.is(envelope.TypeJob) }); jobs != 0 {
		t.Fatalf("the unregistered peer received %d jobs", jobs)
	}

	// With b's record limited to sh, no registered runner runs "special".
	if err := a.st.Registry.CreateRunner(context.Background(), 2, &model.Runner{Pubkey: b.name(), ScriptTypes: []string{"sh"}}); err != nil {
		t.Fatal(err)
	}
	limited := &model.RunnerJob{CallerID: 1, Script: "true", ScriptType: "special", Status: model.JobDispatched, Attempt: 1}
	_, err := a.b.Submit(context.Background(), 2, 2, "", limited, 0, false)
	if !errors.Is(err, ErrNoRunner) || !strings.Contains(err.Error(), "hyphae runner create 2") {
		t.Fatalf("a job of a type no registered runner runs: %v", err)
	}
}

// A job to any whose registered runner is down waits unsent, saying why;
// once the runner is up it goes there (node: TestImpostorCannotAnswerForAWaitingJob,
// TestJobRunToAny).
func TestJobToAnyWaitsForItsRunner(t *testing.T) {
	t.Parallel()
	n := newFakeNet()
	a, b := newSide(t, n, nil), newSide(t, n, nil)
	a.context(t, 1)
	b.grant(t, 1, a.name(), model.RoleExecutor)
	if err := a.st.Registry.CreateRunner(context.Background(), 1, &model.Runner{Pubkey: b.name(), ScriptTypes: []string{"sh"}}); err != nil {
		t.Fatal(err)
	}
	a.tr.setPeer(&model.Peer{PeerID: b.name(), State: model.PeerDown, ScriptTypes: []string{"sh"}, Capacity: 1})

	j := a.submit(t, 1, 1, "", "true", 0)
	m := a.msg(t, 1, j.MessageKey())
	if m.Dst != "" || !strings.Contains(m.Error, "waiting for a runner") {
		t.Fatalf("job message with its runner down: dst %q, error %q; want it waiting", m.Dst, m.Error)
	}
	if sent := n.count(func(f fakeFrame) bool { return f.is(envelope.TypeJob) }); sent != 0 {
		t.Fatalf("%d job envelopes sent while the runner is down", sent)
	}
	a.tr.setPeer(&model.Peer{PeerID: b.name(), State: model.PeerUp, ScriptTypes: []string{"sh"}, Capacity: 1})
	b.finish(t, 1, jobKey(b.onlyJob(t, 1)), nil)
	if got := a.waitEnded(t, 1, jobKey(j)); got.Status != model.JobFinished || got.Runner != b.name() {
		t.Fatalf("origin job = %s, runner %q; want finished by b", got.Status, got.Runner)
	}
}
