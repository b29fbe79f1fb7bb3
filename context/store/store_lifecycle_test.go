package store_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/store"
)

var ctStates = []model.JobStatus{"", model.JobDispatched, model.JobWaiting, model.JobStarted, model.JobError, model.JobFinished}

// TestStoreLuaLifecycleAgreesWithModel drives every (from, to) pair through
// the Lua scripts and compares the outcome with model.JobStatus.CanMoveTo.
func TestStoreLuaLifecycleAgreesWithModel(t *testing.T) {
	s, srv := ctOpen(t)
	ctx := ctCtx(t)
	raw := srv.Client(t, 1)
	froms := append(ctStates, "bogus")
	tos := append(ctStates, "bogus")
	n := 0
	reset := func(key string, from model.JobStatus) {
		t.Helper()
		if err := raw.Del(ctx, key, store.ReplyKey(key)).Err(); err != nil {
			t.Fatal(err)
		}
		args := []any{"id", "1", "attempt", "1", "script_type", "sh"}
		if from != "" {
			args = append(args, "status", string(from))
		}
		if err := raw.HSet(ctx, key, args...).Err(); err != nil {
			t.Fatal(err)
		}
	}
	status := func(key string) model.JobStatus {
		return model.JobStatus(raw.HGet(ctx, key, "status").Val())
	}
	for _, from := range froms {
		for _, to := range tos {
			n++
			key := store.JobKey(1, uint64(n))
			want := from.CanMoveTo(to)
			what := fmt.Sprintf("%q -> %q", from, to)

			reset(key, from)
			err := s.Jobs.SetJobStatus(ctx, 1, key, 0, to, model.Hash{"note": "x"})
			ctCheckMove(t, "SetJobStatus "+what, err, want)
			if want && status(key) != to {
				t.Errorf("SetJobStatus %s: hash status is %q", what, status(key))
			}
			if !want && (status(key) != from || raw.HExists(ctx, key, "note").Val()) {
				t.Errorf("SetJobStatus %s refused but the hash changed: %v", what, raw.HGetAll(ctx, key).Val())
			}

			if to.Terminal() {
				reset(key, from)
				err := s.Jobs.CompleteJob(ctx, 1, key, 1, to, nil)
				ctCheckMove(t, "CompleteJob "+what, err, want)
				if got := raw.LLen(ctx, store.ReplyKey(key)).Val(); (got == 1) != want {
					t.Errorf("CompleteJob %s: reply list has %d entries", what, got)
				}
			}
			if to == model.JobDispatched {
				reset(key, from)
				_, err := s.Jobs.RequeueJob(ctx, 1, key, "sh", 1, nil)
				ctCheckMove(t, "RequeueJob "+what, err, want)
				if att := raw.HGet(ctx, key, "attempt").Val(); (att == "2") != want {
					t.Errorf("RequeueJob %s: attempt is %s", what, att)
				}
			}
		}
	}
	if n != len(froms)*len(tos) {
		t.Fatalf("exercised %d pairs", n)
	}
}

func ctCheckMove(t *testing.T, what string, err error, allowed bool) {
	t.Helper()
	if allowed && err != nil {
		t.Errorf("%s: allowed by the model, refused by Lua: %v", what, err)
	}
	if !allowed && !errors.Is(err, model.ErrBadTransition) {
		t.Errorf("%s: refused by the model, Lua gave %v", what, err)
	}
}

func TestStoreJobTransitionsAndFencing(t *testing.T) {
	s, srv := ctOpen(t)
	ctx := ctCtx(t)
	raw := srv.Client(t, 3)
	j := &model.RunnerJob{CallerID: 7, ContextID: 3, Script: "echo", ScriptType: "sh"}
	if err := s.Jobs.EnqueueJob(ctx, j); err != nil {
		t.Fatal(err)
	}
	key := store.JobKey(7, j.ID)
	if j.Attempt != 1 || j.Status != model.JobDispatched {
		t.Fatalf("enqueued job: attempt %d status %s", j.Attempt, j.Status)
	}
	if err := s.Jobs.SetJobStatus(ctx, 3, key, 1, model.JobStarted, model.Hash{"runner": "r1"}); err != nil {
		t.Fatal(err)
	}
	// A write from an attempt that is not current is fenced off and
	// changes nothing.
	err := s.Jobs.SetJobStatus(ctx, 3, key, 2, model.JobFinished, model.Hash{"result": `{"x":"stale"}`})
	if !errors.Is(err, store.ErrFenced) {
		t.Fatalf("stale attempt: want ErrFenced, got %v", err)
	}
	if err := s.Jobs.CompleteJob(ctx, 3, key, 5, model.JobFinished, nil); !errors.Is(err, store.ErrFenced) {
		t.Fatalf("stale CompleteJob: %v", err)
	}
	if _, err := s.Jobs.RequeueJob(ctx, 3, key, "sh", 9, nil); !errors.Is(err, store.ErrFenced) {
		t.Fatalf("stale RequeueJob: %v", err)
	}
	h := raw.HGetAll(ctx, key).Val()
	if h["status"] != "started" || h["result"] != "{}" || h["runner"] != "r1" {
		t.Fatalf("fenced writes changed the job: %v", h)
	}
	if err := s.Jobs.CompleteJob(ctx, 3, key, 1, model.JobFinished, model.Hash{"result": `{"out":"ok"}`}); err != nil {
		t.Fatal(err)
	}
	// finished is final.
	for _, to := range []model.JobStatus{model.JobStarted, model.JobDispatched, model.JobError, model.JobFinished} {
		err := s.Jobs.SetJobStatus(ctx, 3, key, 0, to, nil)
		if !errors.Is(err, model.ErrBadTransition) {
			t.Errorf("finished -> %s: want ErrBadTransition, got %v", to, err)
		} else if !strings.Contains(err.Error(), key) {
			t.Errorf("error %q does not name the job", err)
		}
	}
	if _, err := s.Jobs.RequeueJob(ctx, 3, key, "sh", 0, nil); !errors.Is(err, model.ErrBadTransition) {
		t.Fatalf("requeue of finished job: %v", err)
	}
	got, err := s.Jobs.LoadJobKey(ctx, 3, key)
	if err != nil || got.Status != model.JobFinished || got.Result["out"] != "ok" {
		t.Fatalf("job after refused moves: %+v %v", got, err)
	}

	if err := s.Jobs.SetJobStatus(ctx, 3, "job:7:999", 0, model.JobStarted, nil); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("missing job: %v", err)
	}
	if n, _ := raw.Exists(ctx, "job:7:999").Result(); n != 0 {
		t.Fatal("status change on a missing job created it")
	}
	if err := s.Jobs.CompleteJob(ctx, 3, key, 0, model.JobStarted, nil); err == nil {
		t.Fatal("CompleteJob accepted a non-final status")
	}
}

func TestStoreCompleteJob(t *testing.T) {
	s, srv := ctOpen(t)
	ctx := ctCtx(t)
	raw := srv.Client(t, 2)
	j := &model.RunnerJob{CallerID: 1, ContextID: 2, ScriptType: "sh"}
	if err := s.Jobs.EnqueueJob(ctx, j); err != nil {
		t.Fatal(err)
	}
	key := store.JobKey(1, j.ID)
	if err := s.Jobs.SetJobStatus(ctx, 2, key, 1, model.JobStarted, nil); err != nil {
		t.Fatal(err)
	}
	if err := s.Jobs.CompleteJob(ctx, 2, key, 1, model.JobError, model.Hash{"error": "exit status 3"}); err != nil {
		t.Fatal(err)
	}
	if v := raw.LRange(ctx, store.ReplyKey(key), 0, -1).Val(); len(v) != 1 || v[0] != "error" {
		t.Fatalf("reply:%s = %v, want [error]", key, v)
	}
	if ttl := raw.TTL(ctx, store.ReplyKey(key)).Val(); ttl <= 0 {
		t.Fatalf("reply list has no expiry (TTL %v)", ttl)
	}
	h := raw.HGetAll(ctx, key).Val()
	if h["status"] != "error" || h["error"] != "exit status 3" {
		t.Fatalf("job hash = %v", h)
	}
	// A plain client waiting with BLPOP gets the final status.
	if v, err := raw.BLPop(ctx, 0, "reply:"+key).Result(); err != nil || v[1] != "error" {
		t.Fatalf("BLPOP = %v, %v", v, err)
	}
	// A job outside any flow does not concern the flow scheduler.
	if v := raw.LRange(ctx, store.JobsDoneKey, 0, -1).Val(); len(v) != 0 {
		t.Fatalf("jobs_done = %v after a job without a flow", v)
	}

	// A flow's job is announced on jobs_done for the scheduler, once.
	fj := &model.RunnerJob{CallerID: 1, ContextID: 2, ScriptType: "sh", FlowID: 5}
	if err := s.Jobs.EnqueueJob(ctx, fj); err != nil {
		t.Fatal(err)
	}
	fkey := store.JobKey(1, fj.ID)
	if err := s.Jobs.CompleteJob(ctx, 2, fkey, 1, model.JobFinished, model.Hash{"result": `{"n":"1"}`}); err != nil {
		t.Fatal(err)
	}
	if v := raw.LRange(ctx, store.JobsDoneKey, 0, -1).Val(); len(v) != 1 || v[0] != fkey {
		t.Fatalf("jobs_done = %v, want [%s]", v, fkey)
	}
	if v := raw.LRange(ctx, store.ReplyKey(fkey), 0, -1).Val(); len(v) != 1 || v[0] != "finished" {
		t.Fatalf("reply:%s = %v, want [finished]", fkey, v)
	}
	// A refused completion pushes nothing.
	if err := s.Jobs.CompleteJob(ctx, 2, fkey, 1, model.JobFinished, nil); !errors.Is(err, model.ErrBadTransition) {
		t.Fatalf("second completion: %v", err)
	}
	if n := raw.LLen(ctx, store.JobsDoneKey).Val(); n != 1 {
		t.Fatalf("refused completion pushed on jobs_done (%d entries)", n)
	}
	if n := raw.LLen(ctx, store.ReplyKey(fkey)).Val(); n != 1 {
		t.Fatalf("refused completion pushed on the reply list (%d entries)", n)
	}
}

func TestStoreRequeueJob(t *testing.T) {
	s, srv := ctOpen(t)
	ctx := ctCtx(t)
	raw := srv.Client(t, 2)
	j := &model.RunnerJob{CallerID: 1, ContextID: 2, ScriptType: "python"}
	if err := s.Jobs.EnqueueJob(ctx, j); err != nil {
		t.Fatal(err)
	}
	key := store.JobKey(1, j.ID)
	if got := raw.RPop(ctx, "queue:python").Val(); got != key {
		t.Fatalf("queue head = %q", got)
	}
	if err := s.Jobs.SetJobStatus(ctx, 2, key, 1, model.JobStarted, nil); err != nil {
		t.Fatal(err)
	}
	if err := s.Jobs.CompleteJob(ctx, 2, key, 1, model.JobError, model.Hash{"error": "boom"}); err != nil {
		t.Fatal(err)
	}
	n, err := s.Jobs.RequeueJob(ctx, 2, key, "python", 1, model.Hash{"error": ""})
	if err != nil || n != 2 {
		t.Fatalf("RequeueJob = %d, %v; want attempt 2", n, err)
	}
	h := raw.HGetAll(ctx, key).Val()
	if h["attempt"] != "2" || h["status"] != "dispatched" || h["error"] != "" {
		t.Fatalf("requeued job hash = %v", h)
	}
	if n := raw.Exists(ctx, store.ReplyKey(key)).Val(); n != 0 {
		t.Fatal("reply list of the old attempt still there")
	}
	if got := raw.RPop(ctx, "queue:python").Val(); got != key {
		t.Fatalf("requeued job not on the queue: %q", got)
	}
	// The old attempt is now fenced off.
	if err := s.Jobs.SetJobStatus(ctx, 2, key, 1, model.JobStarted, nil); !errors.Is(err, store.ErrFenced) {
		t.Fatalf("old attempt after requeue: %v", err)
	}
	if err := s.Jobs.SetJobStatus(ctx, 2, key, 2, model.JobStarted, nil); err != nil {
		t.Fatal(err)
	}
	// A started job may be requeued too (lost runner), bumping the attempt.
	if n, err := s.Jobs.RequeueJob(ctx, 2, key, "python", 2, nil); err != nil || n != 3 {
		t.Fatalf("requeue of started job = %d, %v", n, err)
	}
	// A third-party job without an attempt field starts counting at 1.
	raw.HSet(ctx, "job:1:900", "id", "900", "status", "error")
	if n, err := s.Jobs.RequeueJob(ctx, 2, "job:1:900", "sh", 0, nil); err != nil || n != 1 {
		t.Fatalf("requeue without attempt = %d, %v", n, err)
	}
}

func ctWaitBlocked(t *testing.T, raw *redis.Client, cmd string) {
	t.Helper()
	ctEventually(t, "a client blocked in "+cmd, func() bool {
		for _, line := range strings.Split(raw.ClientList(t.Context()).Val(), "\n") {
			if strings.Contains(line, "cmd="+cmd) && strings.Contains(line, "flags=b") {
				return true
			}
		}
		return false
	})
}

func TestStoreWaitJob(t *testing.T) {
	s, srv := ctOpen(t)
	ctx := ctCtx(t)
	raw := srv.Client(t, 2)
	enqueue := func() string {
		j := &model.RunnerJob{CallerID: 1, ContextID: 2, ScriptType: "sh"}
		if err := s.Jobs.EnqueueJob(ctx, j); err != nil {
			t.Fatal(err)
		}
		return store.JobKey(1, j.ID)
	}

	t.Run("completed before the call", func(t *testing.T) {
		key := enqueue()
		if err := s.Jobs.CompleteJob(ctx, 2, key, 1, model.JobFinished, model.Hash{"result": `{"a":"b"}`}); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 2; i++ { // and again: the reply is not used up
			got, err := s.Jobs.WaitJob(ctx, 2, key)
			if err != nil || got.Status != model.JobFinished || got.Result["a"] != "b" {
				t.Fatalf("WaitJob = %+v, %v", got, err)
			}
		}
	})

	t.Run("completed after the call", func(t *testing.T) {
		key := enqueue()
		type res struct {
			j   *model.RunnerJob
			err error
		}
		done := make(chan res, 2)
		for i := 0; i < 2; i++ { // two waiters both wake
			go func() {
				j, err := s.Jobs.WaitJob(ctx, 2, key)
				done <- res{j, err}
			}()
		}
		ctWaitBlocked(t, raw, "brpoplpush")
		if err := s.Jobs.SetJobStatus(ctx, 2, key, 1, model.JobStarted, nil); err != nil {
			t.Fatal(err)
		}
		if err := s.Jobs.CompleteJob(ctx, 2, key, 1, model.JobError, model.Hash{"error": "boom"}); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 2; i++ {
			r := <-done
			if r.err != nil || r.j.Status != model.JobError || r.j.Error != "boom" {
				t.Fatalf("waiter %d got %+v, %v", i, r.j, r.err)
			}
		}
	})

	t.Run("requeued job is waited for anew", func(t *testing.T) {
		key := enqueue()
		if err := s.Jobs.CompleteJob(ctx, 2, key, 1, model.JobError, nil); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Jobs.RequeueJob(ctx, 2, key, "sh", 1, nil); err != nil {
			t.Fatal(err)
		}
		done := make(chan *model.RunnerJob, 1)
		go func() {
			j, err := s.Jobs.WaitJob(ctx, 2, key)
			if err != nil {
				t.Error(err)
			}
			done <- j
		}()
		ctWaitBlocked(t, raw, "brpoplpush")
		if err := s.Jobs.CompleteJob(ctx, 2, key, 2, model.JobFinished, nil); err != nil {
			t.Fatal(err)
		}
		if j := <-done; j == nil || j.Status != model.JobFinished || j.Attempt != 2 {
			t.Fatalf("waiter got %+v", j)
		}
	})

	t.Run("cancelled", func(t *testing.T) {
		key := enqueue()
		cctx, cancel := context.WithCancel(ctx)
		errc := make(chan error, 1)
		go func() {
			_, err := s.Jobs.WaitJob(cctx, 2, key)
			errc <- err
		}()
		ctWaitBlocked(t, raw, "brpoplpush")
		cancel()
		if err := <-errc; !errors.Is(err, context.Canceled) {
			t.Fatalf("cancelled WaitJob: %v", err)
		}
	})

	// WaitNewJob, which skips the first look, still sees an end that came
	// before its call (through the reply list) and one after it.
	t.Run("new job", func(t *testing.T) {
		before := enqueue()
		if err := s.Jobs.CompleteJob(ctx, 2, before, 1, model.JobFinished, nil); err != nil {
			t.Fatal(err)
		}
		if j, err := s.Jobs.WaitNewJob(ctx, 2, before); err != nil || j.Status != model.JobFinished {
			t.Fatalf("WaitNewJob after the end = %+v, %v", j, err)
		}
		after := enqueue()
		done := make(chan *model.RunnerJob, 1)
		go func() {
			j, err := s.Jobs.WaitNewJob(ctx, 2, after)
			if err != nil {
				t.Error(err)
			}
			done <- j
		}()
		ctWaitBlocked(t, raw, "brpoplpush")
		if err := s.Jobs.CompleteJob(ctx, 2, after, 1, model.JobError, model.Hash{"error": "boom"}); err != nil {
			t.Fatal(err)
		}
		if j := <-done; j == nil || j.Status != model.JobError || j.Error != "boom" {
			t.Fatalf("WaitNewJob got %+v", j)
		}
	})

	t.Run("missing job", func(t *testing.T) {
		if _, err := s.Jobs.WaitJob(ctx, 2, "job:1:424242"); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("WaitJob on a missing job: %v", err)
		}
	})
}
