package bridge

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/store"
	"github.com/hyphae-run/hyphae/internal/poll"
)

// Seed 000 steps 5–6 (docs/design.md, "How Hyphae reads the specifications it follows"): a job sent to another agent comes back
// as a result message on the origin context's msg_in, which the actor
// RPOPs: message_type result, the finished job embedded, the job's log
// tail in logs — besides the origin job record.
func TestResultComesHomeAsAMessageOnMsgIn(t *testing.T) {
	t.Parallel()
	n := newFakeNet()
	a, b := newSide(t, n, nil), newSide(t, n, nil)
	a.context(t, 1)
	b.grant(t, 2, a.name(), model.RoleExecutor)

	j := a.submit(t, 1, 2, b.name(), "echo ran", 0)
	remote := b.onlyJob(t, 2)
	if err := b.st.Logs.AppendLogs(t.Context(), 2, jobKey(remote), []string{"first line", "last line"}, 100); err != nil {
		t.Fatal(err)
	}
	b.finish(t, 2, jobKey(remote), map[string]string{"answer": "42"})
	a.waitEnded(t, 1, jobKey(j))

	h := a.popResult(t, 1)
	if h["message_type"] != "result" || h["context_id"] != "1" || h["caller_id"] != "1" ||
		h[model.ExtraResultOf] != jobKey(j) {
		t.Fatalf("result message = %v", h)
	}
	var logs []string
	if err := json.Unmarshal([]byte(h["logs"]), &logs); err != nil || !slices.Equal(logs, []string{"first line", "last line"}) {
		t.Fatalf("result message logs = %s (%v), want the job's log tail", h["logs"], err)
	}
	jobs := embeddedJobs(t, h)
	if len(jobs) != 1 || jobs[0]["id"] != u64(j.ID) || jobs[0]["status"] != "finished" ||
		!strings.Contains(jobs[0]["result"], `"answer":"42"`) {
		t.Fatalf("result message job = %v, want the finished job", jobs)
	}
	if n := a.llen(t, 1, store.MsgInKey); n != 0 {
		t.Fatalf("msg_in holds %d more entries, want one result message only", n)
	}
}

// popResult RPOPs context ctxID's msg_in as the seed's actor does and
// returns the message hash it names.
func (s *side) popResult(t *testing.T, ctxID uint64) map[string]string {
	t.Helper()
	ctx := t.Context()
	key, err := s.db(t, ctxID).RPop(ctx, store.MsgInKey).Result()
	if err != nil {
		t.Fatalf("RPOP msg_in: %v (no result message)", err)
	}
	h, err := s.db(t, ctxID).HGetAll(ctx, key).Result()
	if err != nil || len(h) == 0 {
		t.Fatalf("HGETALL %s: %v %v", key, h, err)
	}
	return h
}

// embeddedJobs decodes a message hash's job list as a plain client would.
func embeddedJobs(t *testing.T, h map[string]string) []map[string]string {
	t.Helper()
	var jobs []map[string]string
	if err := json.Unmarshal([]byte(h["job"]), &jobs); err != nil {
		t.Fatalf("job field %s: %v", h["job"], err)
	}
	return jobs
}

// externalRunner registers runner:<id> with local: true for script type
// typ in context ctxID: an external worker on this agent (seed 001).
func (s *side) externalRunner(t *testing.T, ctxID, id uint64, typ string) {
	t.Helper()
	if err := s.st.Registry.CreateRunner(t.Context(), ctxID, &model.Runner{ID: id, Local: true, ScriptTypes: []string{typ}}); err != nil {
		t.Fatal(err)
	}
}

// submitType sends a new job of script type typ from context origin to
// context target of dst, as job.run does.
func (s *side) submitType(t *testing.T, origin, target uint64, dst, typ string) *model.RunnerJob {
	t.Helper()
	j := &model.RunnerJob{CallerID: 1, Script: "work", ScriptType: typ, Status: model.JobDispatched, Attempt: 1, Runner: dst}
	if _, err := s.b.Submit(context.Background(), origin, target, dst, j, 0, false); err != nil {
		t.Fatalf("submit: %v", err)
	}
	return j
}

// work plays the seed's external worker on context ctxID: BRPOP
// queue:<typ>, HSET the job started; it returns the job key.
func (s *side) work(t *testing.T, ctxID uint64, typ string) string {
	t.Helper()
	ctx := t.Context()
	db := s.db(t, ctxID)
	kv, err := db.BRPop(ctx, waitFor, store.QueueKey(typ)).Result()
	if err != nil {
		t.Fatalf("BRPOP queue:%s: %v", typ, err)
	}
	if err := db.HSet(ctx, kv[1], "status", "started").Err(); err != nil {
		t.Fatal(err)
	}
	return kv[1]
}

// hsetFinished ends job key as the seed's worker does: one HSET of result
// and status.
func (s *side) hsetFinished(t *testing.T, ctxID uint64, key, result string) {
	t.Helper()
	if err := s.db(t, ctxID).HSet(t.Context(), key, "result", result, "status", "finished").Err(); err != nil {
		t.Fatal(err)
	}
}

// A runner record with local: true declares an external worker for its
// type: a received job of that type waits on queue:<type> for it, and when
// the worker ends the job by HSET (status and result), the result goes
// home — the origin job ends with it and the result message is on msg_in.
func TestExternalWorkerHSetSendsTheResultHome(t *testing.T) {
	t.Parallel()
	n := newFakeNet()
	a, b := newSide(t, n, nil), newSide(t, n, nil)
	a.context(t, 1)
	b.grant(t, 2, a.name(), model.RoleExecutor)
	b.externalRunner(t, 2, 20, "v")

	j := a.submitType(t, 1, 2, b.name(), "v")
	key := b.work(t, 2, "v")
	b.hsetFinished(t, 2, key, `{"answer":"42"}`)

	got := a.waitEnded(t, 1, jobKey(j))
	if got.Status != model.JobFinished || got.Result["answer"] != "42" {
		t.Fatalf("origin job = %s %v %q, want finished with the worker's result", got.Status, got.Result, got.Error)
	}
	if jobs := embeddedJobs(t, a.popResult(t, 1)); len(jobs) != 1 || jobs[0]["status"] != "finished" {
		t.Fatalf("result message job = %v", jobs)
	}
}

// A job its external worker ends while the agent is down goes home when
// the agent is back — also when the restarted bridge's external loop
// makes its first pass before the bridge has listed its contexts: the
// restarted bridge's first listings (its start's and the Kick's) find
// none here, so that pass comes first, as it may under load.
func TestExternalWorkerEndWhileDownGoesHomeAtRestart(t *testing.T) {
	t.Parallel()
	n := newFakeNet()
	a, b := newSide(t, n, nil), newSide(t, n, nil)
	a.context(t, 1)
	b.grant(t, 2, a.name(), model.RoleExecutor)
	b.externalRunner(t, 2, 20, "v")

	j := a.submitType(t, 1, 2, b.name(), "v")
	key := b.work(t, 2, "v")
	poll.Eventually(t, waitFor, "the job's delivery acknowledged", func() bool {
		return a.msg(t, 1, j.MessageKey()).Status == model.MsgAcknowledged
	})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := b.b.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	b.hsetFinished(t, 2, key, `{"answer":"down"}`)
	var listings atomic.Int32
	b.cfg.Contexts = func(ctx context.Context) ([]uint64, error) {
		if listings.Add(1) <= 2 {
			return nil, nil
		}
		return b.st.Registry.ContextIDs(ctx)
	}
	b.start(t)

	got := a.waitEnded(t, 1, jobKey(j))
	if got.Status != model.JobFinished || got.Result["answer"] != "down" {
		t.Fatalf("origin job = %s %v %q", got.Status, got.Result, got.Error)
	}
}

// A job received for a context created since the bridge last listed its
// contexts (hasContext finds it in the store) is watched for its external
// worker there and goes home when the worker ends it, though every
// context the bridge had listed was found with none watched: the watch's
// write wakes the loop before the context is listed, and nothing writes
// when it is.
func TestExternalWorkerJobOfAContextListedLateGoesHome(t *testing.T) {
	t.Parallel()
	n := newFakeNet()
	a, b := newSide(t, n, nil), newSide(t, n, nil)
	var listed atomic.Bool
	b.cfg.Contexts = func(ctx context.Context) ([]uint64, error) {
		ids, err := b.st.Registry.ContextIDs(ctx)
		if listed.Load() {
			return ids, err
		}
		return slices.DeleteFunc(ids, func(id uint64) bool { return id == 2 }), err
	}
	b.restart(t)
	a.context(t, 1)
	b.context(t, 3)
	b.grant(t, 2, a.name(), model.RoleExecutor)
	b.externalRunner(t, 2, 20, "v")

	j := a.submitType(t, 1, 2, b.name(), "v")
	key := b.work(t, 2, "v")
	listed.Store(true)
	b.b.Kick()
	b.hsetFinished(t, 2, key, `{"answer":"late"}`)

	got := a.waitEnded(t, 1, jobKey(j))
	if got.Status != model.JobFinished || got.Result["answer"] != "late" {
		t.Fatalf("origin job = %s %v %q", got.Status, got.Result, got.Error)
	}
}

// An external worker may report by a result message on msg_out instead
// (seed 000 step 7): the job it names ends with the message's status and
// result, the result goes home, and the message ends processed — msg_out
// no longer refuses result messages.
func TestResultMessageOnMsgOutGoesHome(t *testing.T) {
	t.Parallel()
	n := newFakeNet()
	a, b := newSide(t, n, nil), newSide(t, n, nil)
	a.context(t, 1)
	b.grant(t, 2, a.name(), model.RoleExecutor)
	b.externalRunner(t, 2, 20, "v")

	j := a.submitType(t, 1, 2, b.name(), "v")
	key := b.work(t, 2, "v")
	caller, id, err := store.ParseJobKey(key)
	if err != nil {
		t.Fatal(err)
	}
	job, _ := json.Marshal([]map[string]any{{"id": id, "caller_id": caller, "context_id": 2,
		"status": "finished", "result": map[string]string{"answer": "7"}}})
	mk := b.rawMessage(t, 2, caller, 900, "context_id", "2", "message_type", "result", "job", string(job))

	got := a.waitEnded(t, 1, jobKey(j))
	if got.Status != model.JobFinished || got.Result["answer"] != "7" {
		t.Fatalf("origin job = %s %v %q", got.Status, got.Result, got.Error)
	}
	poll.Eventually(t, waitFor, "the result message processed", func() bool {
		return b.msg(t, 2, mk).Status == model.MsgProcessed
	})
	if st := b.job(t, 2, key).Status; st != model.JobFinished {
		t.Fatalf("the worker's job is %s, want finished", st)
	}
}

// With only an external worker declared for a type (runner record, local:
// true) a job message on msg_out with neither dst nor runner is not
// refused for want of a runner: it is materialised here, on queue:<type>,
// for that worker, and its result comes home as a message on msg_in —
// the seed's one-agent path, written with plain Redis commands.
func TestJobForALocalRunnerRecordWaitsForItsWorker(t *testing.T) {
	t.Parallel()
	a := newSide(t, newFakeNet(), nil)
	a.grant(t, 1, a.name(), model.RoleExecutor)
	a.externalRunner(t, 1, 20, "v")

	job, _ := json.Marshal([]map[string]any{{"id": 2001, "caller_id": 12, "context_id": 1,
		"script": "print 1", "script_type": "v"}})
	mk := a.rawMessage(t, 1, 12, 101, "context_id", "1", "message_type", "job", "job", string(job))
	key := a.work(t, 1, "v")
	if key == "job:12:2001" {
		t.Fatalf("the worker got the origin job itself, want its materialised copy")
	}
	a.hsetFinished(t, 1, key, `{"answer":"1"}`)

	got := a.waitEnded(t, 1, "job:12:2001")
	if got.Status != model.JobFinished || got.Result["answer"] != "1" {
		t.Fatalf("origin job = %s %v %q (message: %+v)", got.Status, got.Result, got.Error, a.msg(t, 1, mk))
	}
	var h map[string]string
	poll.Eventually(t, waitFor, "the result message on msg_in", func() bool {
		ks, _ := a.db(t, 1).LRange(t.Context(), store.MsgInKey, 0, -1).Result()
		for _, k := range ks {
			if h, _ = a.db(t, 1).HGetAll(t.Context(), k).Result(); h["message_type"] == "result" {
				return true
			}
		}
		return false
	})
	if jobs := embeddedJobs(t, h); len(jobs) != 1 || jobs[0]["id"] != "2001" || jobs[0]["status"] != "finished" {
		t.Fatalf("result message job = %v", jobs)
	}
}

// A result message on msg_out for a job a client queued here itself (no
// other agent involved) ends that job and lands on this context's msg_in,
// processed: its actor is here.
func TestResultMessageForALocalJobLandsOnMsgIn(t *testing.T) {
	t.Parallel()
	a := newSide(t, newFakeNet(), nil)
	a.context(t, 1)
	a.externalRunner(t, 1, 20, "v")
	ctx := t.Context()
	db := a.db(t, 1)
	if err := db.HSet(ctx, "job:12:5", "id", "5", "caller_id", "12", "context_id", "1", "script", "x",
		"script_type", "v", "status", "dispatched").Err(); err != nil {
		t.Fatal(err)
	}
	db.LPush(ctx, store.QueueKey("v"), "job:12:5")
	key := a.work(t, 1, "v")
	job, _ := json.Marshal([]map[string]any{{"id": 5, "caller_id": 12, "status": "finished",
		"result": map[string]string{"a": "1"}}})
	mk := a.rawMessage(t, 1, 12, 77, "context_id", "1", "message_type", "result", "job", string(job))

	got := a.waitEnded(t, 1, key)
	if got.Status != model.JobFinished || got.Result["a"] != "1" {
		t.Fatalf("job = %s %v %q", got.Status, got.Result, got.Error)
	}
	poll.Eventually(t, waitFor, "the result message on msg_in", func() bool {
		ks, _ := db.LRange(ctx, store.MsgInKey, 0, -1).Result()
		return slices.Contains(ks, mk)
	})
	if m := a.msg(t, 1, mk); m.Status != model.MsgProcessed {
		t.Fatalf("result message %s %q, want processed", m.Status, m.Error)
	}
}
