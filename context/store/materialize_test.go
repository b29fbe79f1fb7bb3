package store_test

import (
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/store"
)

// Materialize lets a received job in only when its caller holds
// executors or admins in the context, checked in the same script as the
// writes: a reader, an actor with no grant or a context that does not
// exist get ErrDenied saying why, and nothing is written; a grant written
// by another client as a JSON list of strings counts too; a resend of an
// accepted ref gets the first job back.
func TestMaterializeChecksTheCallersRole(t *testing.T) {
	s, srv := ctOpen(t)
	ctx := ctCtx(t)
	actor, c := grantedContext(t, s, []string{"admin", "exec", "reader", "none", "strs"},
		map[string]model.Role{"admin": model.RoleAdmin, "exec": model.RoleExecutor, "reader": model.RoleReader})
	db := srv.Client(t, int(c.ID))
	grants, _ := db.HGet(ctx, store.ContextKey(c.ID), "executors").Result()
	withStr := strings.TrimSuffix(grants, "]") + `,"` + strconv.FormatUint(actor["strs"].ID, 10) + `"]`
	if err := db.HSet(ctx, store.ContextKey(c.ID), "executors", withStr).Err(); err != nil {
		t.Fatal(err)
	}
	try := func(ctxID uint64, who, ref string) (string, bool, error) {
		j := &model.RunnerJob{CallerID: actor[who].ID, ContextID: ctxID, Script: "-", ScriptType: "noop",
			Status: model.JobDispatched, Attempt: 1}
		m := &model.Message{CallerID: actor[who].ID, ContextID: ctxID, MessageType: model.MsgTypeJob,
			Status: model.MsgAcknowledged, Job: []*model.RunnerJob{j}}
		return s.Bus.Materialize(ctx, ctxID, "12D3KooW"+who, ref, 1, "job:1:"+ref, m, j)
	}
	for _, who := range []string{"admin", "exec", "strs"} {
		key, created, err := try(c.ID, who, who)
		if err != nil || !created || key == "" {
			t.Errorf("%s: %q %v %v, want a new job", who, key, created, err)
		}
		again, created, err := try(c.ID, who, who)
		if err != nil || created || again != key {
			t.Errorf("%s resent: %q %v %v, want %q again", who, again, created, err, key)
		}
	}
	before, _ := db.DBSize(ctx).Result()
	for _, who := range []string{"reader", "none"} {
		_, _, err := try(c.ID, who, who)
		if !errors.Is(err, store.ErrDenied) || !strings.Contains(err.Error(), "lacks role executor") {
			t.Errorf("%s: %v, want ErrDenied saying the role is missing", who, err)
		}
	}
	if _, _, err := try(c.ID+5, "admin", "elsewhere"); !errors.Is(err, store.ErrDenied) || !errors.Is(err, store.ErrNotFound) {
		t.Errorf("context that does not exist: %v", err)
	}
	if after, _ := db.DBSize(ctx).Result(); after != before {
		t.Errorf("refused jobs wrote %d keys", after-before)
	}
	if n, _ := db.LLen(ctx, store.QueueKey("noop")).Result(); n != 3 {
		t.Errorf("queue:noop holds %d jobs, want the 3 accepted", n)
	}
}

// MaterializeAndClaim claims the job it materialised for the runner, in
// the same round trip: leased, started and off the queue; a refused job
// leaves nothing to claim.
func TestMaterializeAndClaimTakesTheJob(t *testing.T) {
	s, srv := ctOpen(t)
	ctx := ctCtx(t)
	actor, c := grantedContext(t, s, []string{"exec", "reader"},
		map[string]model.Role{"exec": model.RoleExecutor, "reader": model.RoleReader})
	spec := &store.ClaimSpec{RunnerID: "runner-a", Types: []string{"sh", "noop"}, Lease: time.Minute}
	try := func(who string) (string, *store.Claim, error) {
		j := &model.RunnerJob{CallerID: actor[who].ID, ContextID: c.ID, Script: "-", ScriptType: "noop",
			Status: model.JobDispatched, Attempt: 1}
		m := &model.Message{CallerID: actor[who].ID, ContextID: c.ID, MessageType: model.MsgTypeJob,
			Status: model.MsgAcknowledged, Job: []*model.RunnerJob{j}}
		key, _, cl, err := s.Bus.MaterializeAndClaim(ctx, c.ID, "12D3KooW"+who, who, 1, "job:1:"+who, m, j, spec)
		return key, cl, err
	}
	key, cl, err := try("exec")
	if err != nil || cl == nil {
		t.Fatalf("exec: %v %+v", err, cl)
	}
	if cl.JobKey != key || cl.Verdict != store.VerdictRun || cl.Type != "noop" || cl.Lease.Owner != "runner-a" {
		t.Errorf("claim %+v, want %s run by runner-a", cl, key)
	}
	db := srv.Client(t, int(c.ID))
	if st, _ := db.HGet(ctx, key, "status").Result(); st != "started" {
		t.Errorf("claimed job status %q, want started", st)
	}
	if n, _ := db.LLen(ctx, store.QueueKey("noop")).Result(); n != 0 {
		t.Errorf("queue holds %d jobs after the claim", n)
	}
	// As ClaimJob leaves a claimed job: on the runner's processing list,
	// leased for attempt 1 to the runner until the lease's expiry.
	if got, _ := db.LRange(ctx, store.ProcessingKey("runner-a"), 0, -1).Result(); len(got) != 1 || got[0] != key {
		t.Errorf("processing:runner-a = %v, want [%s]", got, key)
	}
	if l, err := s.Queues.LeaseOf(ctx, c.ID, key); err != nil || l.Owner != "runner-a" || l.Attempt != 1 {
		t.Errorf("lease %+v (%v), want attempt 1 held by runner-a", l, err)
	}
	if exp, _ := db.ZScore(ctx, store.LeasesKey, key).Result(); int64(exp) != cl.Lease.Expires.UnixMilli() {
		t.Errorf("lease expiry %v, want %v", int64(exp), cl.Lease.Expires.UnixMilli())
	}
	if cl.Hash["script"] != "-" || cl.Hash["status"] != "started" || cl.Hash["attempt"] != "1" {
		t.Errorf("claim's fields %v, want the job as written, started, attempt 1", cl.Hash)
	}
	if _, cl, err := try("reader"); !errors.Is(err, store.ErrDenied) || cl != nil {
		t.Errorf("reader: %v, claim %+v; want refused and nothing claimed", err, cl)
	}
}

// With a backlog on the runner's queues, a received job is queued behind
// it, not claimed ahead of it: first come, first served.
func TestMaterializeAndClaimQueuesBehindABacklog(t *testing.T) {
	s, srv := ctOpen(t)
	ctx := ctCtx(t)
	actor, c := grantedContext(t, s, []string{"exec"}, map[string]model.Role{"exec": model.RoleExecutor})
	db := srv.Client(t, int(c.ID))
	if err := db.LPush(ctx, store.QueueKey("sh"), "job:9:1").Err(); err != nil {
		t.Fatal(err)
	}
	spec := &store.ClaimSpec{RunnerID: "runner-a", Types: []string{"sh", "noop"}, Lease: time.Minute}
	j := &model.RunnerJob{CallerID: actor["exec"].ID, ContextID: c.ID, Script: "-", ScriptType: "noop",
		Status: model.JobDispatched, Attempt: 1}
	m := &model.Message{CallerID: actor["exec"].ID, ContextID: c.ID, MessageType: model.MsgTypeJob,
		Status: model.MsgAcknowledged, Job: []*model.RunnerJob{j}}
	key, created, cl, err := s.Bus.MaterializeAndClaim(ctx, c.ID, "12D3KooWexec", "r1", 1, "job:1:r1", m, j, spec)
	if err != nil || !created || cl != nil {
		t.Fatalf("%q %v claim %+v %v; want created and not claimed", key, created, cl, err)
	}
	if got, _ := db.LRange(ctx, store.QueueKey("noop"), 0, -1).Result(); len(got) != 1 || got[0] != key {
		t.Errorf("queue:noop = %v, want [%s]", got, key)
	}
	if st, _ := db.HGet(ctx, key, "status").Result(); st != "dispatched" {
		t.Errorf("queued job status %q, want dispatched", st)
	}
}
