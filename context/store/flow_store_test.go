package store_test

import (
	"errors"
	"testing"
	"time"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/store"
)

// flowFixture stores flow 1 with jobs a (id 1) and b (id 2, needs a).
func flowFixture(t *testing.T, s *store.Store) (*model.Flow, []*model.RunnerJob) {
	t.Helper()
	f := &model.Flow{ID: 1, CallerID: 9, ContextID: 2, Name: "f", Jobs: []uint64{1, 2}, Status: model.FlowDispatched}
	jobs := []*model.RunnerJob{
		{ID: 1, CallerID: 9, ContextID: 2, Name: "a", FlowID: 1, ScriptType: "sh", Script: "true", Status: model.JobWaiting},
		{ID: 2, CallerID: 9, ContextID: 2, Name: "b", FlowID: 1, ScriptType: "sh", Script: "true", Status: model.JobWaiting, Prerequisites: []string{"1"}},
	}
	if err := s.Flows.SaveFlowGraph(ctCtx(t), f, jobs, map[string]string{"a": "ready", "b": "pending"}); err != nil {
		t.Fatalf("SaveFlowGraph: %v", err)
	}
	return f, jobs
}

func TestFlowGraphRoundTrip(t *testing.T) {
	s, _ := ctOpen(t)
	ctx := ctCtx(t)
	f, jobs := flowFixture(t, s)
	if err := s.Flows.SaveFlowGraph(ctx, f, jobs, map[string]string{}); !errors.Is(err, store.ErrExists) {
		t.Fatalf("saving again: %v, want ErrExists", err)
	}
	g, err := s.Flows.LoadFlowGraph(ctx, 2, 1)
	if err != nil {
		t.Fatal(err)
	}
	if g.Flow.Name != "f" || len(g.Jobs) != 2 || g.Jobs[1].Prerequisites[0] != "1" || g.Nodes["b"] != "pending" {
		t.Fatalf("graph: %+v %+v %v", g.Flow, g.Jobs, g.Nodes)
	}
	first, err := s.Flows.ReserveIDs(ctx, 2, "job", 10)
	if err != nil || first != 1 {
		t.Fatalf("ReserveIDs: %d, %v", first, err)
	}
	if next, _ := s.Flows.ReserveIDs(ctx, 2, "job", 1); next != 11 {
		t.Fatalf("next id %d, want 11", next)
	}
}

func TestApplyFlowStepGuards(t *testing.T) {
	s, _ := ctOpen(t)
	ctx := ctCtx(t)
	flowFixture(t, s)
	step := store.FlowStep{FlowStatus: []string{"started"}, Moves: []store.NodeMove{{Name: "a", From: []string{"ready"}, To: "dispatched"}}}
	if ok, _, err := s.Flows.ApplyFlowStep(ctx, 2, 1, step); ok || err != nil {
		t.Fatalf("flow guard: applied %v, %v; want not applied", ok, err)
	}
	step = store.FlowStep{FlowStatus: []string{"dispatched"}, Flow: model.Hash{"status": "started"}, Active: "add",
		Moves:   []store.NodeMove{{Name: "a", From: []string{"ready"}, To: "dispatched"}, {Name: "b", From: []string{"ready"}, To: "x"}},
		Results: map[string]string{"a.k": "v"}}
	ok, moved, err := s.Flows.ApplyFlowStep(ctx, 2, 1, step)
	if !ok || err != nil || len(moved) != 1 || moved[0] != "a" {
		t.Fatalf("step: %v %v %v; want a moved, b not", ok, moved, err)
	}
	if ids, _ := s.Flows.ActiveFlows(ctx, 2); len(ids) != 1 || ids[0] != 1 {
		t.Fatalf("active %v", ids)
	}
	if r, _ := s.Flows.FlowResults(ctx, 2, 1); r["a.k"] != "v" {
		t.Fatalf("results %v", r)
	}
	node := store.FlowStep{Node: "a", NodeStates: []string{"ready"}, Moves: []store.NodeMove{{Name: "b", From: []string{"pending"}, To: "ready"}}}
	if ok, _, _ := s.Flows.ApplyFlowStep(ctx, 2, 1, node); ok {
		t.Fatal("node guard held for a node that is not ready")
	}
}

func TestDispatchFlowJobsOnce(t *testing.T) {
	s, srv := ctOpen(t)
	ctx := ctCtx(t)
	_, jobs := flowFixture(t, s)
	a := *jobs[0]
	a.Attempt, a.Status = 1, model.JobDispatched
	d := store.FlowDispatch{FlowID: 1, Node: "a", NodeStates: []string{"ready"}, Job: &a}
	for i := 0; i < 2; i++ { // a second load path (the script is cached after the first)
		oks, err := s.Flows.DispatchFlowJobs(ctx, 2, []store.FlowDispatch{d, d})
		if err != nil || len(oks) != 2 || oks[0] != (i == 0) || oks[1] {
			t.Fatalf("round %d: %v %v; want exactly the first dispatched once", i, oks, err)
		}
	}
	rdb := srv.Client(t, 2)
	if n := rdb.LLen(ctx, store.QueueKey("sh")).Val(); n != 1 {
		t.Fatalf("queue:sh has %d entries, want 1", n)
	}
	b := *jobs[1]
	b.Attempt = 1
	m := &model.Message{ID: 5, CallerID: 9, ContextID: 2, MessageType: model.MsgTypeJob, Job: []*model.RunnerJob{&b}, Dst: "peer"}
	rdb.HSet(ctx, store.FlowNodesKey(1), "b", "ready")
	oks, err := s.Flows.DispatchFlowJobs(ctx, 2, []store.FlowDispatch{{FlowID: 1, Node: "b", NodeStates: []string{"ready"}, Job: &b, Msg: m}})
	if err != nil || !oks[0] {
		t.Fatalf("remote dispatch: %v %v", oks, err)
	}
	got, err := s.Bus.LoadMessage(ctx, 2, 9, 5)
	if err != nil || got.Dst != "peer" || got.Status != model.MsgDispatched || rdb.LLen(ctx, store.MsgOutKey).Val() != 1 {
		t.Fatalf("message %+v, %v", got, err)
	}
	fenced := store.FlowDispatch{FlowID: 1, Node: "b", NodeStates: []string{"dispatched"}, Attempt: 7, Job: &b, Msg: m}
	if oks, _ := s.Flows.DispatchFlowJobs(ctx, 2, []store.FlowDispatch{fenced}); oks[0] {
		t.Fatal("dispatch fenced on a stale attempt went through")
	}
}

func TestJobsDoneEvents(t *testing.T) {
	s, srv := ctOpen(t)
	ctx := ctCtx(t)
	rdb := srv.Client(t, 2)
	rdb.LPush(ctx, store.JobsDoneKey, "job:1:1", "job:1:2")
	proc := store.JobsDoneProcessingKey("me")
	k, err := s.Flows.NextJobDone(ctx, 2, proc, 100*time.Millisecond)
	if err != nil || k != "job:1:1" {
		t.Fatalf("NextJobDone: %q %v", k, err)
	}
	if n, err := s.Flows.RestoreJobsDone(ctx, 2, proc); n != 1 || err != nil {
		t.Fatalf("RestoreJobsDone: %d %v", n, err)
	}
	for _, want := range []string{"job:1:1", "job:1:2", ""} {
		k, err := s.Flows.NextJobDone(ctx, 2, proc, 100*time.Millisecond)
		if err != nil || k != want {
			t.Fatalf("NextJobDone: %q %v, want %q", k, err, want)
		}
		if k != "" {
			if err := s.Flows.AckJobDone(ctx, 2, proc, k); err != nil {
				t.Fatal(err)
			}
		}
	}
	if n := rdb.LLen(ctx, proc).Val(); n != 0 {
		t.Fatalf("processing list has %d entries after acks", n)
	}
}
