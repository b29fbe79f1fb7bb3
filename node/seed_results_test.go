package node_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hyphae-run/hyphae/node/api/wire"
)

// Seed 000 §4–5, seed 001 Runner.local (docs/design.md, "How Hyphae reads the specifications it follows"): bob's context 2 has
// a runner record with local: true for type v, which bob's own runner
// does not run — an external worker. A job of type v that alice sends
// there is not failed fast for want of a runner: it waits on queue:v for
// that worker, which BRPOPs it and ends it by HSET; the result then goes
// home, onto alice's job and as a result message on her msg_in.
func TestRemoteJobForAnExternalWorkerComesHome(t *testing.T) {
	t.Parallel()
	b := startAgent(t, agentOpts{tcpAPI: true})
	a := startAgent(t, agentOpts{bootstrap: []string{b.addr(t)}})
	grantExecutor(t, b, 2, a.peerID())
	newSeedClient(t, b).call(t, "runner.create", map[string]any{"context_id": 2,
		"runner": map[string]any{"id": 20, "local": true, "script_types": []string{"v"}}}, nil)
	a.call(t, "context.create", map[string]any{"id": 1}, nil)

	var j wire.JobView
	a.call(t, "job.run", map[string]any{"to": b.peerID(), "context": 2, "type": "v", "script": "println(1)"}, &j)
	ctx := context.Background()
	worker := dbOf(t, b.redis, 2)
	eventually(t, 30*time.Second, "the job on bob's queue:v", func() bool {
		return worker.LLen(ctx, "queue:v").Val() == 1
	})
	// A job of type w, which nothing here runs, fails within seconds: once
	// it has, the sweeper has looked at this context since the job of type
	// v arrived, and left that one for its worker.
	if err := worker.HSet(ctx, "job:1:900", "id", "900", "caller_id", "1", "context_id", "2", "script", "x",
		"script_type", "w", "status", "dispatched").Err(); err != nil {
		t.Fatal(err)
	}
	worker.LPush(ctx, "queue:w", "job:1:900")
	eventually(t, 30*time.Second, "the job of type w failed", func() bool {
		return worker.HGet(ctx, "job:1:900", "status").Val() == "error"
	})
	if n := worker.LLen(ctx, "queue:v").Val(); n != 1 {
		t.Fatalf("queue:v holds %d jobs after a sweep, want the one waiting for its external worker", n)
	}
	kv, err := worker.BRPop(ctx, 30*time.Second, "queue:v").Result()
	if err != nil {
		t.Fatalf("the external worker got no job from queue:v: %v (origin job: %+v)", err, j)
	}
	if err := worker.HSet(ctx, kv[1], "status", "started").Err(); err != nil {
		t.Fatal(err)
	}
	if err := worker.HSet(ctx, kv[1], "result", `{"answer":"42"}`, "status", "finished").Err(); err != nil {
		t.Fatal(err)
	}
	got := waitJob(t, a, 1, j.Key)
	if got.Status != "finished" || got.Result["answer"] != "42" {
		t.Fatalf("origin job = %+v, want finished with the worker's result", got)
	}
	var msg map[string]string
	eventually(t, 30*time.Second, "the result message on alice's msg_in", func() bool {
		key, err := dbOf(t, a.redis, 1).RPop(ctx, "msg_in").Result()
		if err != nil {
			return false
		}
		msg, _ = dbOf(t, a.redis, 1).HGetAll(ctx, key).Result()
		return msg["message_type"] == "result"
	})
	var jobs []map[string]any
	if err := json.Unmarshal([]byte(msg["job"]), &jobs); err != nil || len(jobs) != 1 || jobs[0]["status"] != "finished" {
		t.Fatalf("result message job = %s (%v)", msg["job"], err)
	}
}

// Seed 001: Runner.topic defaults to runner<id>; Actor.address holds the
// actor's reachable addresses — the multiaddrs this agent knows for its
// peer when the record names none.
func TestSeedRunnerTopicAndActorAddressDefaults(t *testing.T) {
	t.Parallel()
	b := startAgent(t, agentOpts{})
	a := startAgent(t, agentOpts{tcpAPI: true, bootstrap: []string{b.addr(t)}})
	c := newSeedClient(t, a)
	c.call(t, "context.create", map[string]any{"context": map[string]any{"id": 3}}, nil)

	var rn seedRunner
	c.call(t, "runner.create", map[string]any{"context_id": 3, "runner": map[string]any{"id": 21, "pubkey": b.peerID()}}, &rn)
	if rn.Topic != "runner21" {
		t.Fatalf("runner.create without a topic: topic %q, want runner21", rn.Topic)
	}
	if topic, _ := dbOf(t, a.redis, 3).HGet(context.Background(), "runner:21", "topic").Result(); topic != "runner21" {
		t.Fatalf("runner:21 topic in Redis %q, want runner21", topic)
	}
	c.call(t, "runner.create", map[string]any{"context_id": 3, "runner": map[string]any{"local": true}}, &rn)
	if want := "runner" + strings.TrimSpace(jsonNumber(rn.ID)); rn.Topic != want {
		t.Fatalf("runner.create without id or topic: %+v, want topic %s", rn, want)
	}

	var act seedActor
	eventually(t, 30*time.Second, "bob's addresses known to alice", func() bool {
		c.call(t, "actor.create", map[string]any{"actor": map[string]any{"pubkey": b.peerID()}}, &act)
		c.call(t, "actor.load", map[string]any{"id": act.ID}, &act)
		return len(act.Address) > 0
	})
	for _, addr := range act.Address {
		if !strings.HasSuffix(addr, "/p2p/"+b.peerID()) {
			t.Fatalf("bob's actor: address %v, want his multiaddrs", act.Address)
		}
	}
	var self wire.ActorView
	a.call(t, "actor.load", map[string]any{"actor": a.peerID()}, &self)
	c.call(t, "actor.load", map[string]any{"id": self.ID}, &act)
	if !slices.Contains(act.Address, a.addr(t)) {
		t.Fatalf("this agent's actor: address %v, want its listen address %s", act.Address, a.addr(t))
	}
}

func jsonNumber(v uint32) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// A flow job of a type only an external worker runs (runner record with
// local: true) waits on queue:<type> for it; when the worker ends it by
// HSET, the flow goes on and finishes with its result.
func TestFlowJobForAnExternalWorker(t *testing.T) {
	t.Parallel()
	a := startAgent(t, agentOpts{tcpAPI: true})
	c := newSeedClient(t, a)
	a.call(t, "context.create", map[string]any{"id": 1}, nil)
	c.call(t, "runner.create", map[string]any{"context_id": 1,
		"runner": map[string]any{"id": 20, "local": true, "script_types": []string{"v"}}}, nil)
	c.call(t, "job.create", map[string]any{"context_id": 1, "job": map[string]any{"id": 1, "script_type": "sh",
		"script": "true"}}, nil)
	c.call(t, "job.create", map[string]any{"context_id": 1, "job": map[string]any{"id": 2, "script_type": "v",
		"script": "println(2)", "dependends": []int{1}}}, nil)
	c.call(t, "flow.create", map[string]any{"context_id": 1, "flow": map[string]any{"id": 5, "jobs": []int{1, 2}}}, nil)
	c.call(t, "flow.start", map[string]any{"context_id": 1, "id": 5}, nil)

	ctx := context.Background()
	worker := dbOf(t, a.redis, 1)
	kv, err := worker.BRPop(ctx, 30*time.Second, "queue:v").Result()
	if err != nil {
		t.Fatalf("the external worker got no job from queue:v: %v", err)
	}
	worker.HSet(ctx, kv[1], "status", "started")
	worker.HSet(ctx, kv[1], "result", `{"answer":"42"}`, "status", "finished")
	if f := waitSeedFlow(t, c, 5); f.Status != "finished" || f.Result["job2.answer"] != "42" {
		t.Fatalf("flow ended %+v", f)
	}
}
