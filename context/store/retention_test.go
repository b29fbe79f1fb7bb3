package store_test

import (
	"context"
	"slices"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/hyphae-run/hyphae/context/store"
)

// rtJob writes job key with status and updated_at 100 and extra fields,
// with a log line, a reply list and a stop marker beside it.
func rtJob(t *testing.T, c *redis.Client, key, status string, extra ...any) {
	t.Helper()
	ctx := context.Background()
	fields := append([]any{"status", status, "updated_at", "100", "script_type", "sh"}, extra...)
	if err := c.HSet(ctx, key, fields...).Err(); err != nil {
		t.Fatal(err)
	}
	c.RPush(ctx, store.LogKey(key), "a line")
	c.LPush(ctx, store.ReplyKey(key), status)
	c.Set(ctx, store.StopKey(key), "0", 0)
}

func rtKeys(es []store.Ended) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.Key
	}
	slices.Sort(out)
	return out
}

func rtExists(t *testing.T, c *redis.Client, keys ...string) int64 {
	t.Helper()
	n, err := c.Exists(context.Background(), keys...).Result()
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// Ended jobs go with their log, reply list and stop marker; jobs that have
// not ended, or that something still needs (a lease, a job message still
// out, a result not yet home, a flow that exists), stay; a dry run
// removes nothing.
func TestPruneJobsRemovesOnlyWhatNothingNeeds(t *testing.T) {
	s, srv := ctOpen(t)
	ctx := ctCtx(t)
	c := srv.Client(t, 1)
	rtJob(t, c, "job:1:1", "finished")
	rtJob(t, c, "job:1:2", "error")
	rtJob(t, c, "job:1:3", "started")
	rtJob(t, c, "job:1:4", "dispatched")
	rtJob(t, c, "job:1:5", "finished") // leased
	c.ZAdd(ctx, store.LeasesKey, redis.Z{Score: 1, Member: "job:1:5"})
	rtJob(t, c, "job:1:6", "error", "message_key", "message:1:60") // sent away, no answer yet
	c.ZAdd(ctx, store.AwaitingKey, redis.Z{Score: 1, Member: "message:1:60"})
	rtJob(t, c, "job:1:7", "finished", "origin_peer", "12D3KooWX") // its result not sent yet
	c.LPush(ctx, store.RemoteDoneKey, "job:1:7")
	rtJob(t, c, "job:1:8", "finished", "origin_peer", "12D3KooWX") // its result not acknowledged
	c.HSet(ctx, "message:1:80", "status", "dispatched", "result_of", "job:1:8")
	c.ZAdd(ctx, store.OutboxKey, redis.Z{Score: 1, Member: "message:1:80"})
	rtJob(t, c, "job:1:9", "finished", "flow_id", "3") // goes with flow:3
	c.HSet(ctx, store.FlowKey(3), "status", "finished")
	rtJob(t, c, "job:1:10", "finished", "flow_id", "4") // flow:4 is gone: a job on its own

	listed, err := s.Jobs.EndedJobs(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"job:1:1", "job:1:10", "job:1:2", "job:1:5", "job:1:6", "job:1:7", "job:1:8"}
	if got := rtKeys(listed); !slices.Equal(got, want) {
		t.Fatalf("EndedJobs = %v, want %v", got, want)
	}
	gone := []string{"job:1:1", "job:1:10", "job:1:2"}
	dry, err := s.Jobs.PruneJobs(ctx, 1, listed, true)
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(dry.Jobs)
	if !slices.Equal(dry.Jobs, gone) || dry.Bytes <= 0 || rtExists(t, c, gone...) != 3 {
		t.Fatalf("dry run: would remove %v (%d bytes), want %v and nothing removed", dry.Jobs, dry.Bytes, gone)
	}
	p, err := s.Jobs.PruneJobs(ctx, 1, listed, false)
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(p.Jobs)
	if !slices.Equal(p.Jobs, gone) || p.Bytes <= 0 {
		t.Fatalf("removed %v (%d bytes), want %v", p.Jobs, p.Bytes, gone)
	}
	for _, k := range gone {
		if n := rtExists(t, c, k, store.LogKey(k), store.ReplyKey(k), store.StopKey(k)); n != 0 {
			t.Errorf("%s: %d of its keys left", k, n)
		}
	}
	for _, k := range []string{"job:1:3", "job:1:4", "job:1:5", "job:1:6", "job:1:7", "job:1:8", "job:1:9"} {
		if rtExists(t, c, k, store.LogKey(k)) != 2 {
			t.Errorf("%s or its log was removed", k)
		}
	}
}

// A job that changed after it was listed (run again and ended anew) is
// not removed on the strength of the old listing.
func TestPruneJobsKeepsAJobThatChangedSinceTheListing(t *testing.T) {
	s, srv := ctOpen(t)
	ctx := ctCtx(t)
	c := srv.Client(t, 1)
	rtJob(t, c, "job:1:1", "error")
	listed, err := s.Jobs.EndedJobs(ctx, 1)
	if err != nil || len(listed) != 1 {
		t.Fatalf("listed %v %v", listed, err)
	}
	c.HSet(ctx, "job:1:1", "status", "finished", "updated_at", "200")
	p, err := s.Jobs.PruneJobs(ctx, 1, listed, false)
	if err != nil || len(p.Jobs) != 0 || rtExists(t, c, "job:1:1") != 1 {
		t.Fatalf("removed %v (%v): the job had changed", p.Jobs, err)
	}
}

// An ended flow goes with its node states, results and jobs; an active
// flow, or one with a job still running, stays with all its jobs.
func TestPruneFlowsTakesTheirJobs(t *testing.T) {
	s, srv := ctOpen(t)
	ctx := ctCtx(t)
	c := srv.Client(t, 1)
	flow := func(id uint64, status string, jobs string) {
		c.HSet(ctx, store.FlowKey(id), "status", status, "updated_at", "100", "caller_id", "1", "jobs", jobs)
		c.HSet(ctx, store.FlowNodesKey(id), "a", "completed")
		c.HSet(ctx, store.FlowResultsKey(id), "a.x", "1")
	}
	flow(1, "finished", "[11,12]")
	rtJob(t, c, "job:1:11", "finished", "flow_id", "1")
	rtJob(t, c, "job:1:12", "error", "flow_id", "1")
	flow(2, "error", "[21,22]")
	rtJob(t, c, "job:1:21", "error", "flow_id", "2")
	rtJob(t, c, "job:1:22", "started", "flow_id", "2") // still running
	flow(3, "finished", "[31]")
	rtJob(t, c, "job:1:31", "finished", "flow_id", "3")
	c.SAdd(ctx, store.FlowsActiveKey, "3") // the scheduler is not done with it
	flow(4, "started", "[41]")
	rtJob(t, c, "job:1:41", "started", "flow_id", "4")

	listed, err := s.Flows.EndedFlows(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	if got := rtKeys(listed); !slices.Equal(got, []string{"flow:1", "flow:2", "flow:3"}) {
		t.Fatalf("EndedFlows = %v", got)
	}
	p, err := s.Flows.PruneFlows(ctx, 1, listed, false)
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(p.Jobs)
	if !slices.Equal(p.Keys, []string{"flow:1"}) || !slices.Equal(p.Jobs, []string{"job:1:11", "job:1:12"}) {
		t.Fatalf("removed flows %v jobs %v, want flow:1 with job:1:11 and job:1:12", p.Keys, p.Jobs)
	}
	if n := rtExists(t, c, "flow:1", "flow_nodes:1", "flow_results:1", "job:1:11", "logs:job:1:11", "job:1:12"); n != 0 {
		t.Errorf("%d keys of flow:1 left", n)
	}
	if n := rtExists(t, c, "flow:2", "job:1:21", "job:1:22", "flow:3", "job:1:31", "flow:4", "job:1:41"); n != 7 {
		t.Errorf("only %d of the 7 kept flows and jobs are left", n)
	}
}

// Settled messages go unless something still waits on them; msg_in keeps
// its newest entries and loses those whose message is gone.
func TestPruneMessagesAndTrimMsgIn(t *testing.T) {
	s, srv := ctOpen(t)
	ctx := ctCtx(t)
	c := srv.Client(t, 1)
	msg := func(key, status string) {
		c.HSet(ctx, key, "status", status, "updated_at", "100")
		c.LPush(ctx, store.MsgInKey, key)
	}
	msg("message:1:1", "processed")
	msg("message:1:2", "error")
	msg("message:1:3", "acknowledged")
	msg("message:1:4", "processed")
	c.ZAdd(ctx, store.OutboxKey, redis.Z{Score: 1, Member: "message:1:4"})
	msg("message:1:5", "processed")
	c.LPush(ctx, store.MsgOutKey, "message:1:5")

	listed, err := s.Bus.EndedMessages(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	p, err := s.Bus.PruneMessages(ctx, 1, listed, false)
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(p.Keys)
	if !slices.Equal(p.Keys, []string{"message:1:1", "message:1:2"}) || rtExists(t, c, "message:1:3", "message:1:4", "message:1:5") != 3 {
		t.Fatalf("removed %v, want message:1:1 and message:1:2 only", p.Keys)
	}
	// msg_in, newest first: 5 4 3 2 1; 1 and 2 are gone.
	if n, err := s.Bus.TrimMsgIn(ctx, 1, 10, 100, true); err != nil || n != 2 {
		t.Fatalf("dry trim: %d %v, want 2", n, err)
	}
	if l := c.LLen(ctx, store.MsgInKey).Val(); l != 5 {
		t.Fatalf("a dry trim changed msg_in: %d entries", l)
	}
	if n, err := s.Bus.TrimMsgIn(ctx, 1, 2, 100, false); err != nil || n != 3 {
		t.Fatalf("trim to 2: dropped %d %v, want 3", n, err)
	}
	if got := c.LRange(ctx, store.MsgInKey, 0, -1).Val(); !slices.Equal(got, []string{"message:1:5", "message:1:4"}) {
		t.Fatalf("msg_in = %v", got)
	}
}

// A pruned saga takes the jobs that compensated its jobs with it (they
// are named only by each job's compensate_key, not in the flow's jobs).
func TestPruneFlowsTakesTheirCompensations(t *testing.T) {
	s, srv := ctOpen(t)
	ctx := ctCtx(t)
	c := srv.Client(t, 1)
	c.HSet(ctx, store.FlowKey(1), "status", "error", "updated_at", "100", "caller_id", "1", "jobs", "[11,12]")
	rtJob(t, c, "job:1:11", "finished", "flow_id", "1", "compensate_key", "job:1:13")
	rtJob(t, c, "job:1:12", "error", "flow_id", "1")
	rtJob(t, c, "job:1:13", "finished") // the compensation of job 11
	listed, err := s.Flows.EndedFlows(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	p, err := s.Flows.PruneFlows(ctx, 1, listed, false)
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(p.Jobs)
	if !slices.Equal(p.Jobs, []string{"job:1:11", "job:1:12", "job:1:13"}) {
		t.Fatalf("removed jobs %v, want the flow's two and the compensation job:1:13", p.Jobs)
	}
	if n := rtExists(t, c, "job:1:13", "logs:job:1:13"); n != 0 {
		t.Errorf("%d keys of the compensation left", n)
	}
}
