package scheduler_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/store"
	"github.com/hyphae-run/hyphae/scheduler"
)

const (
	peerA = "12D3KooWPeerAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
	peerB = "12D3KooWPeerBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB"
)

// outbox pops the next message the scheduler handed to the bridge.
func outbox(t *testing.T, e *env) *model.Message {
	t.Helper()
	rdb := e.srv.Client(t, ctxID)
	var key string
	eventually(t, "a message on msg_out", func() bool {
		k, err := rdb.RPop(e.ctx, store.MsgOutKey).Result()
		key = k
		return err == nil
	})
	m, err := e.st.Bus.LoadMessageKey(e.ctx, ctxID, key)
	if err != nil {
		t.Fatalf("load %s: %v", key, err)
	}
	if len(m.Job) != 1 {
		t.Fatalf("message %s carries %d jobs, want 1", key, len(m.Job))
	}
	return m
}

func TestRemoteDispatchPinnedPeer(t *testing.T) {
	e := newEnv(t, 1)
	s := e.sched(t, e.config())
	fl := e.run(t, s, `
timeout: 1h
jobs:
  far:  {type: sh, runner: `+peerA+`, timeout: 30s, script: 'echo remote'}
  here: {type: sh, needs: far, script: 'echo "got=$HYPHAE_IN_FAR_ANSWER" >> "$HYPHAE_RESULT"'}
`)
	m := outbox(t, e)
	j := m.Job[0]
	switch {
	case m.MessageType != model.MsgTypeJob, m.Dst != peerA, m.ContextID != ctxID, m.Status != model.MsgDispatched:
		t.Fatalf("message type %s dst %s context %d status %s", m.MessageType, m.Dst, m.ContextID, m.Status)
	case j.Name != "far", j.FlowID != fl.ID, j.Attempt != 1, j.Status != model.JobDispatched, j.Runner != peerA:
		t.Fatalf("job in message: name %s flow %d attempt %d status %s runner %s", j.Name, j.FlowID, j.Attempt, j.Status, j.Runner)
	case m.Timeout != 30:
		t.Fatalf("message timeout %d, want the job's 30", m.Timeout)
	}
	key := store.JobKey(j.CallerID, j.ID)
	stored, err := e.st.Jobs.LoadJobKey(e.ctx, ctxID, key)
	if err != nil || stored.Status != model.JobDispatched || stored.Runner != peerA {
		t.Fatalf("job hash %s: %+v, %v", key, stored, err)
	}
	// The bridge writes the result back onto the same job hash.
	err = e.st.Jobs.CompleteJob(e.ctx, ctxID, key, 1, model.JobFinished, model.Hash{"result": `{"answer":"42"}`})
	if err != nil {
		t.Fatalf("CompleteJob: %v", err)
	}
	st := e.wait(t, s, fl.ID)
	wantFlow(t, st, model.FlowFinished)
	if st.Result["here.got"] != "42" || st.Result["far.answer"] != "42" {
		t.Fatalf("result %v", st.Result)
	}
	if e.w.count("far") != 0 {
		t.Fatal("the pinned job ran locally")
	}
}

// register records peers as runners of the test context: a job whose
// runner the flow leaves open goes only to a registered runner.
func register(t *testing.T, e *env, peers ...string) {
	t.Helper()
	for _, p := range peers {
		if err := e.st.Registry.SaveRunner(e.ctx, ctxID, &model.Runner{Pubkey: p}); err != nil {
			t.Fatal(err)
		}
	}
}

func TestRemoteDispatchByType(t *testing.T) {
	e := newEnv(t, 0)
	register(t, e, peerB)
	cfg := e.config()
	cfg.PickRunner = func(typ string, avoid []string) string {
		if typ == "gpu" {
			return peerB
		}
		return ""
	}
	s := e.sched(t, cfg)
	e.run(t, s, `
jobs:
  train: {type: gpu, script: 'train'}
  other: {type: rust, script: 'cargo run'}
`)
	got := map[string]string{}
	for i := 0; i < 2; i++ {
		m := outbox(t, e)
		got[m.Job[0].Name] = m.Dst
	}
	if got["train"] != peerB || got["other"] != "" {
		t.Fatalf("dst by job %v: want train → peerB (picked), other → \"\" (bridge routes by type)", got)
	}
}

func TestRemoteRunnerLost(t *testing.T) {
	e := newEnv(t, 0)
	register(t, e, peerA, peerB)
	var mu sync.Mutex
	down := map[string]bool{peerA: true}
	cfg := e.config()
	cfg.RunnerLostAfter = 50 * time.Millisecond
	cfg.PeerUp = func(p string) bool { mu.Lock(); defer mu.Unlock(); return !down[p] }
	cfg.PickRunner = func(_ string, avoid []string) string {
		for _, p := range []string{peerA, peerB} {
			if !slices.Contains(avoid, p) {
				return p
			}
		}
		return ""
	}
	s := e.sched(t, cfg)
	fl := e.run(t, s, "jobs:\n  train: {type: gpu, retries: 1, script: 'train'}\n")
	first := outbox(t, e)
	if first.Dst != peerA {
		t.Fatalf("first attempt went to %s", first.Dst)
	}
	second := outbox(t, e) // after peerA stays down past runner_lost_after
	j := second.Job[0]
	if second.Dst != peerB || j.Attempt != 2 {
		t.Fatalf("re-dispatch: dst %s attempt %d, want peerB attempt 2", second.Dst, j.Attempt)
	}
	key := store.JobKey(j.CallerID, j.ID)
	// The new attempt says that the lost one may still have run on peerA,
	// and keeps where it was given up on (its late result is kept).
	stored, err := e.st.Jobs.LoadJobKey(e.ctx, ctxID, key)
	if err != nil {
		t.Fatal(err)
	}
	warn := "attempt 1: runner " + peerA + " unreachable for "
	if !strings.HasPrefix(stored.Error, warn) || !strings.Contains(stored.Error, "it may still have run there; a retry may run it twice") ||
		stored.Extra[model.ExtraLostRunner] != peerA || stored.Extra[model.ExtraLostAttempt] != "1" {
		t.Fatalf("attempt 2: error %q, lost %q/%q; want %q… and peerA/1", stored.Error,
			stored.Extra[model.ExtraLostRunner], stored.Extra[model.ExtraLostAttempt], warn)
	}
	late := e.st.Jobs.CompleteJob(e.ctx, ctxID, key, 1, model.JobFinished, model.Hash{"result": `{"who":"A"}`})
	if !errors.Is(late, store.ErrFenced) {
		t.Fatalf("late result of attempt 1: %v, want ErrFenced", late)
	}
	if err := e.st.Jobs.CompleteJob(e.ctx, ctxID, key, 2, model.JobFinished, model.Hash{"result": `{"who":"B"}`}); err != nil {
		t.Fatal(err)
	}
	st := e.wait(t, s, fl.ID)
	wantFlow(t, st, model.FlowFinished)
	if st.Result["train.who"] != "B" {
		t.Fatalf("result %v: want B's", st.Result)
	}
}

func TestRemoteRunnerLostNoRetries(t *testing.T) {
	e := newEnv(t, 0)
	cfg := e.config()
	cfg.RunnerLostAfter = 50 * time.Millisecond
	cfg.PeerUp = func(p string) bool { return p != peerA }
	s := e.sched(t, cfg)
	fl := e.run(t, s, "jobs:\n  far: {type: sh, runner: "+peerA+", script: 'true'}\n  next: {type: sh, needs: far, script: 'true'}\n")
	st := e.wait(t, s, fl.ID)
	wantFlow(t, st, model.FlowError)
	if !strings.Contains(st.Error, "lost") || job(t, st, "next").State != model.NodeCancelled {
		t.Fatalf("error %q, next %s", st.Error, job(t, st, "next").State)
	}
	if far := job(t, st, "far"); !strings.Contains(far.Error, "runner "+peerA+" unreachable for ") ||
		!strings.HasSuffix(far.Error, ": lost (it may still have run there; a retry may run it twice)") {
		t.Fatalf("far's error %q: want the lost runner's warning", far.Error)
	}
}

// A flow job whose runner is unreachable (marked by the bridge) shows as
// unknown, counted apart, until the mark goes; the stored node state
// stays dispatched.
func TestUnreachableRunnerJobShowsUnknown(t *testing.T) {
	e := newEnv(t, 0)
	cfg := e.config()
	cfg.PeerUp = func(string) bool { return true }
	s := e.sched(t, cfg)
	fl := e.run(t, s, "jobs:\n  far: {type: sh, runner: "+peerA+", script: 'true'}\n")
	m := outbox(t, e)
	key := store.JobKey(m.Job[0].CallerID, m.Job[0].ID)
	if _, ok, err := e.st.Jobs.MarkUnreachable(e.ctx, ctxID, key, 1, time.Now()); err != nil || !ok {
		t.Fatalf("mark: %v %v", ok, err)
	}
	st, err := s.Status(e.ctx, ctxID, fl.ID)
	if err != nil {
		t.Fatal(err)
	}
	if far := job(t, st, "far"); far.State != model.NodeUnknown || far.Status != model.JobDispatched ||
		st.Progress.Unknown != 1 || st.Progress.Dispatched != 0 {
		t.Fatalf("far = %s (status %s), progress %+v; want unknown, counted as such", far.State, far.Status, st.Progress)
	}
	if err := e.st.Jobs.ClearUnreachable(e.ctx, ctxID, key, 1); err != nil {
		t.Fatal(err)
	}
	if st, _ = s.Status(e.ctx, ctxID, fl.ID); job(t, st, "far").State != model.NodeDispatched {
		t.Fatalf("after the runner came back far is %s, want dispatched", job(t, st, "far").State)
	}
}

func TestSubscribe(t *testing.T) {
	e := newEnv(t, 1)
	s := e.sched(t, e.config())
	fl := e.create(t, s, "jobs:\n  a: {type: sh, script: 'sleep 0.1'}\n  b: {type: sh, needs: a, script: 'true'}\n")
	ch, cancel := s.Subscribe(ctxID, fl.ID)
	defer cancel()
	if err := s.StartFlow(e.ctx, ctxID, fl.ID); err != nil {
		t.Fatal(err)
	}
	var last *scheduler.Status
	n := 0
	ctx, stop := context.WithTimeout(e.ctx, time.Minute)
	defer stop()
	for st := range ch {
		last, n = st, n+1
		if ctx.Err() != nil {
			t.Fatal("no end")
		}
	}
	if last == nil || last.Status != model.FlowFinished || n < 2 {
		t.Fatalf("got %d statuses, last %+v", n, last)
	}
}

func TestShutdownTwice(t *testing.T) {
	e := newEnv(t, 0)
	s := e.sched(t, e.config())
	ch, _ := s.Subscribe(ctxID, 999)
	for i := 0; i < 2; i++ {
		if err := s.Shutdown(e.ctx); err != nil {
			t.Fatalf("Shutdown %d: %v", i+1, err)
		}
	}
	if _, open := <-ch; open {
		t.Fatal("subscription still open after Shutdown")
	}
	fl := e.create(t, s, "jobs:\n  a: {type: sh, script: 'true'}\n")
	if err := s.StartFlow(e.ctx, ctxID, fl.ID); !errors.Is(err, scheduler.ErrClosed) {
		t.Fatalf("StartFlow after Shutdown: %v, want ErrClosed", err)
	}
}

func TestRunnerIDRouting(t *testing.T) {
	e := newEnv(t, 1)
	s := e.sched(t, e.config())
	for _, rn := range []*model.Runner{{ID: 5, Pubkey: peerA}, {ID: 6, Local: true}} {
		if err := e.st.Registry.SaveRunner(e.ctx, ctxID, rn); err != nil {
			t.Fatal(err)
		}
	}
	fl := e.run(t, s, "jobs:\n  far: {type: sh, runner: 'runner:5', script: 'true'}\n  near: {type: sh, runner: 'runner:6', script: 'true'}\n  lost: {type: sh, runner: 'runner:7', script: 'true'}\n")
	got := map[string]*model.Message{}
	for i := 0; i < 2; i++ {
		m := outbox(t, e)
		got[m.Job[0].Name] = m
	}
	if m := got["far"]; m == nil || m.Dst != peerA || m.Job[0].Runner != peerA {
		t.Fatalf("runner:5 (on peerA): %+v", m)
	}
	if m := got["lost"]; m == nil || m.Dst != "" || m.Job[0].Runner != "runner:7" {
		t.Fatalf("runner:7 (unknown): %+v", m)
	}
	eventually(t, "runner:6 (local) to run here", func() bool { return e.w.count("near") == 1 })
	st, _ := s.Status(e.ctx, ctxID, fl.ID)
	if j := job(t, st, "near"); j.Runner != e.config().Self {
		t.Fatalf("local job's runner %q, want this agent's peer ID", j.Runner)
	}
}
