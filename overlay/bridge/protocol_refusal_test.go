package bridge

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/store"
	"github.com/hyphae-run/hyphae/crypto/envelope"
	"github.com/hyphae-run/hyphae/internal/poll"
)

// A job from an agent that holds no role in the target context is refused
// with an error reply signed by the target, saying how to be let in; the
// origin's job and message end in error with that reason, nothing is
// written in the target context, and the sender is held to account
// (node: TestCrossTenantJobRefusedWithoutGrant).
func TestJobWithoutRoleIsRefused(t *testing.T) {
	t.Parallel()
	n := newFakeNet()
	a, b := newSide(t, n, nil), newSide(t, n, nil)
	a.context(t, 1)
	b.context(t, 3)
	before := b.keys(t, 3)

	j := a.submit(t, 1, 3, b.name(), "touch /tmp/should-not-run", 0)
	got := a.waitEnded(t, 1, jobKey(j))
	grant := "hyphae context grant 3 --actor " + a.name() + " --role executor"
	if got.Status != model.JobError || !strings.Contains(got.Error, "refused") || !strings.Contains(got.Error, grant) {
		t.Fatalf("origin job = %s %q; want error: refused, saying %q", got.Status, got.Error, grant)
	}
	m := a.msg(t, 1, j.MessageKey())
	if m.Status != model.MsgError || m.Error != got.Error {
		t.Errorf("origin message = %s %q; want error with the job's reason", m.Status, m.Error)
	}
	if n := a.zcard(t, 1, store.OutboxKey); n != 0 {
		t.Errorf("origin outbox holds %d messages after the refusal", n)
	}
	replies := n.count(func(f fakeFrame) bool {
		return f.from == b.peer() && f.to == a.peer() && f.is(envelope.TypeError) && f.env.From == b.peer()
	})
	if replies != 1 {
		t.Errorf("%d error envelopes signed by the target, want 1", replies)
	}
	if after := b.keys(t, 3); !slices.Equal(before, after) {
		t.Errorf("the refused job changed the target context: keys %v, then %v", before, after)
	}
	if r, p := b.rejected("unauthorized"), b.tr.penalized(a.peer(), "unauthorized"); r != 1 || p != 1 {
		t.Errorf("unauthorized counted %d, penalized %d; want 1 each", r, p)
	}
}

// A job for a context the target does not have is refused saying so and
// how its operator makes it; nothing is written in that DB
// (node: TestCrossTenantJobToMissingContextIsRefused).
func TestJobToMissingContextIsRefused(t *testing.T) {
	t.Parallel()
	n := newFakeNet()
	a, b := newSide(t, n, nil), newSide(t, n, nil)
	a.context(t, 1)
	b.grant(t, 3, a.name(), model.RoleExecutor) // a is known there, but context 4 does not exist

	j := a.submit(t, 1, 4, b.name(), "true", 0)
	got := a.waitEnded(t, 1, jobKey(j))
	if got.Status != model.JobError || !strings.Contains(got.Error, "context 4 does not exist there") ||
		!strings.Contains(got.Error, "hyphae context create --id 4") {
		t.Fatalf("origin job = %s %q; want a refusal naming the missing context and how to create it", got.Status, got.Error)
	}
	if keys := b.keys(t, 4); len(keys) != 0 {
		t.Fatalf("the refused job wrote keys in DB 4: %v", keys)
	}
}

// A job from a peer granted a role whose job cannot be used (no script)
// is refused with a reply saying so and counted as malformed_job, not as
// unauthorized (node: TestMalformedJobCountedApart).
func TestMalformedJobCountedApart(t *testing.T) {
	t.Parallel()
	n := newFakeNet()
	b := newSide(t, n, nil)
	x := newStranger(t, n)
	b.grant(t, 1, x.name(), model.RoleExecutor)

	p := jobFrom("1/message:1:1", "")
	x.send(t, b.peer(), envelope.TypeJob, 1, p)
	if r := x.next(t, envelope.TypeError); r.p.AckOf != p.Ref || !strings.Contains(r.p.Error, "malformed job") {
		t.Fatalf("reply = %+v; want an error for %s saying the job is malformed", r.p, p.Ref)
	}
	if r, u := b.rejected(reasonMalformedJob), b.rejected("unauthorized"); r != 1 || u != 0 {
		t.Fatalf("malformed_job %d, unauthorized %d; want 1 and 0", r, u)
	}
	if b.tr.penalized(x.id.PeerID(), reasonMalformedJob) != 1 {
		t.Error("the malformed job cost its sender nothing")
	}
	if js := b.jobs(t, 1); len(js) != 0 {
		t.Errorf("the malformed job left %d jobs", len(js))
	}
}

// A job from a sender whose actor was made anew (revoked, deleted and
// granted again under a new id) is let in under the new id, not refused
// under the one the bridge remembers (node:
// TestRemoteJobAfterSendersActorMadeAnew).
func TestJobAfterSendersActorMadeAnew(t *testing.T) {
	t.Parallel()
	n := newFakeNet()
	a, b := newSide(t, n, nil), newSide(t, n, nil)
	a.context(t, 1)
	b.grant(t, 2, a.name(), model.RoleExecutor)
	runOne := func() *model.RunnerJob {
		j := a.submit(t, 1, 2, b.name(), "true", 0)
		var remote *model.RunnerJob
		poll.Eventually(t, waitFor, "the job to reach b", func() bool {
			for _, r := range b.jobs(t, 2) {
				if r.Origin().Job == jobKey(j) {
					remote = r
				}
			}
			return remote != nil
		})
		b.finish(t, 2, jobKey(remote), nil)
		if got := a.waitEnded(t, 1, jobKey(j)); got.Status != model.JobFinished {
			t.Fatalf("job = %s %q", got.Status, got.Error)
		}
		return remote
	}
	first := runOne()

	ctx := context.Background()
	old, err := b.st.Registry.ActorByPubkey(ctx, a.name())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.st.Registry.Revoke(ctx, 2, old.ID, model.RoleExecutor); err != nil {
		t.Fatal(err)
	}
	if err := b.st.Registry.DeleteActor(ctx, old.ID); err != nil {
		t.Fatal(err)
	}
	now, err := b.st.Registry.EnsureActor(ctx, a.name())
	if err != nil || now.ID == old.ID {
		t.Fatalf("actor made anew: %+v %v, old id %d", now, err, old.ID)
	}
	if _, err := b.st.Registry.Grant(ctx, 2, now.ID, model.RoleExecutor); err != nil {
		t.Fatal(err)
	}
	second := runOne()
	if first.CallerID != old.ID || second.CallerID != now.ID {
		t.Errorf("callers %d then %d, want the old id %d then the new %d", first.CallerID, second.CallerID, old.ID, now.ID)
	}
}
