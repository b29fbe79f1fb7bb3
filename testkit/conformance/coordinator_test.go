package conformance

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/redis/go-redis/v9"
)

// Seed 002: COORDINATOR_URL (http://127.0.0.1:9652) is the JSON-RPC
// endpoint itself; the project also serves /rpc.
func TestCoordinatorURLAndRPCPath(t *testing.T) {
	newContext(t, 2)
	for _, path := range []string{"/", "/rpc"} {
		res, e := post(t, path, "context.load", map[string]any{"id": 2})
		var c Context
		if e != nil {
			t.Fatalf("POST %s context.load: %v", path, e)
		}
		decode(t, "context.load", res, &c)
		if c.ID != 2 || !slices.Equal(c.Admins, []uint32{1}) || !slices.Equal(c.Executors, []uint32{1}) {
			t.Fatalf("POST %s context.load: %+v", path, c)
		}
	}
	ctx := t.Context()
	h, err := db(t, 2).HGetAll(ctx, "context:2").Result()
	if err != nil || h["id"] != "2" || h["admins"] != "[1]" {
		t.Fatalf("context:2 in DB 2: %v %v", h, err)
	}
}

// Seed 001 Actor; seed 002 actor.create {actor:{…}} and actor.load {id}:
// the caller's id is kept, the pubkey (an ed25519 key in hex) is taken,
// and actor:<id> is a hash in DB 0.
func TestActorCreateAndLoad(t *testing.T) {
	pub, _, _ := ed25519.GenerateKey(rand.Reader)
	var a Actor
	call(t, "actor.create", map[string]any{"actor": map[string]any{"id": 7001, "pubkey": hex.EncodeToString(pub),
		"address": []string{"mycelium://a"}}}, &a)
	if a.ID != 7001 || a.Pubkey == "" || !slices.Equal(a.Address, []string{"mycelium://a"}) || a.CreatedAt == 0 {
		t.Fatalf("actor.create: %+v", a)
	}
	var b Actor
	call(t, "actor.load", map[string]any{"id": 7001}, &b)
	if b.ID != 7001 || b.Pubkey != a.Pubkey {
		t.Fatalf("actor.load: %+v, created %+v", b, a)
	}
	h, err := db(t, 0).HGetAll(t.Context(), "actor:7001").Result()
	if err != nil || h["id"] != "7001" || h["pubkey"] != a.Pubkey || h["address"] != `["mycelium://a"]` {
		t.Fatalf("actor:7001 in DB 0: %v %v", h, err)
	}
}

// Seed 001 Runner; seed 002 runner.create {context_id, runner:{…}},
// runner.load {context_id, id}: runner:<id> in the context's DB.
func TestRunnerCreateAndLoad(t *testing.T) {
	newContext(t, 3)
	pub, _, _ := ed25519.GenerateKey(rand.Reader)
	call(t, "runner.create", map[string]any{"context_id": 3, "runner": map[string]any{"id": 20,
		"pubkey": hex.EncodeToString(pub), "address": "mycelium://r", "topic": "runner20", "local": false}}, nil)
	var r Runner
	call(t, "runner.load", map[string]any{"context_id": 3, "id": 20}, &r)
	if r.ID != 20 || r.Pubkey == "" || r.Address != "mycelium://r" || r.Topic != "runner20" || r.Local {
		t.Fatalf("runner.load: %+v", r)
	}
	h, err := db(t, 3).HGetAll(t.Context(), "runner:20").Result()
	if err != nil || h["topic"] != "runner20" || h["local"] != "false" {
		t.Fatalf("runner:20 in DB 3: %v %v", h, err)
	}
}

// Seed 001 RunnerJob; seed 002 job.create {context_id, job:{…}}, job.load
// {context_id, caller_id, id}: the caller's id is kept, fields come back
// with their JSON types, job:<caller_id>:<id> is a hash in the context's
// DB, and the status is one of the seed's.
func TestJobCreateAndLoad(t *testing.T) {
	newContext(t, 4)
	call(t, "job.create", map[string]any{"context_id": 4, "job": map[string]any{"id": 2001, "caller_id": 12,
		"context_id": 4, "script": "print('hi')", "script_type": "python", "timeout": 30, "retries": 2,
		"env_vars": map[string]string{"K": "v"}, "prerequisites": []string{}, "dependends": []int{}}}, nil)
	var j Job
	call(t, "job.load", map[string]any{"context_id": 4, "caller_id": 12, "id": 2001}, &j)
	if j.ID != 2001 || j.CallerID != 12 || j.ContextID != 4 || j.ScriptType != "python" || j.Timeout != 30 ||
		j.Retries != 2 || j.EnvVars["K"] != "v" || j.Prerequisites == nil || j.Dependends == nil {
		t.Fatalf("job.load: %+v", j)
	}
	if !slices.Contains([]string{"dispatched", "waiting_for_prerequisites", "started", "error", "finished"}, j.Status) {
		t.Fatalf("job status %q is not a seed JobStatus", j.Status)
	}
	h, err := db(t, 4).HGetAll(t.Context(), "job:12:2001").Result()
	if err != nil || h["script_type"] != "python" || h["timeout"] != "30" || h["env_vars"] != `{"K":"v"}` || h["dependends"] != "[]" {
		t.Fatalf("job:12:2001 in DB 4: %v %v", h, err)
	}
}

// Seed 001: a RunnerJob id is "provided by the caller". Ids the caller
// chose stay theirs: jobs the implementation numbers itself get others.
func TestCallerChosenIDsAreKept(t *testing.T) {
	newContext(t, 5)
	chosen := map[uint32]bool{}
	for _, id := range []int{1, 2, 3, 40} {
		var j Job
		call(t, "job.create", map[string]any{"context_id": 5, "job": map[string]any{"id": id, "caller_id": 1,
			"script": "pass", "script_type": "python"}}, &j)
		chosen[j.ID] = true
	}
	seen := map[uint32]bool{}
	for range 45 {
		var j Job
		call(t, "job.create", map[string]any{"context_id": 5, "job": map[string]any{"caller_id": 1,
			"script": "pass", "script_type": "python"}}, &j)
		if chosen[j.ID] || seen[j.ID] || j.ID == 0 {
			t.Fatalf("a job got id %d, chosen or given before", j.ID)
		}
		seen[j.ID] = true
	}
}

// Seed 001 Message; seed 002 message.create {context_id, message:{…}}
// (message_format_type accepted), message.load {context_id, caller_id,
// id}: a typed decoder reads Message.job as []Job; message:<caller>:<id>
// is a hash in the context's DB.
func TestMessageCreateAndLoad(t *testing.T) {
	newContext(t, 6)
	call(t, "message.create", map[string]any{"context_id": 6, "message": map[string]any{"id": 101, "caller_id": 12,
		"context_id": 6, "message": "run this", "message_type": "job", "message_format_type": "md",
		"timeout": 60, "timeout_ack": 10, "timeout_result": 60,
		"job": []map[string]any{{"id": 2002, "caller_id": 12, "context_id": 6, "script": "print(2)",
			"script_type": "python", "timeout": 20, "env_vars": map[string]string{}, "dependends": []int{}}}}}, nil)
	var m Message
	call(t, "message.load", map[string]any{"context_id": 6, "caller_id": 12, "id": 101}, &m)
	if m.ID != 101 || m.MessageType != "job" || m.MessageFormatType != "md" || m.Timeout != 60 || m.TimeoutAck != 10 ||
		len(m.Job) != 1 || m.Job[0].ID != 2002 || m.Job[0].Timeout != 20 || m.Job[0].ScriptType != "python" {
		t.Fatalf("message.load: %+v", m)
	}
	if !slices.Contains([]string{"dispatched", "acknowledged", "error", "processed"}, m.Status) {
		t.Fatalf("message status %q is not a seed MessageStatus", m.Status)
	}
	h, err := db(t, 6).HGetAll(t.Context(), "message:12:101").Result()
	if err != nil || h["message_format_type"] != "md" || h["message_type"] != "job" {
		t.Fatalf("message:12:101 in DB 6: %v %v", h, err)
	}
}

// A params object with a key the method does not take is an error
// (-32602), not silently ignored.
func TestUnknownParamsAreRefused(t *testing.T) {
	newContext(t, 10)
	for method, params := range map[string]any{
		"job.load":   map[string]any{"context_id": 10, "caller_id": 1, "id": 1, "bogus": 1},
		"flow.start": map[string]any{"context_id": 10, "id": 1, "bogus": 1},
		"job.create": map[string]any{"context_id": 10, "job": map[string]any{"script": "x", "script_type": "python", "bogus": 1}},
	} {
		if _, e := post(t, "/", method, params); e == nil || e.Code != -32602 {
			t.Errorf("%s with an unknown key: %v, want -32602", method, e)
		}
	}
}

// JSON-RPC over WebSocket at COORDINATOR_URL, as the coordinator offers
// it beside HTTP.
func TestJSONRPCOverWebSocket(t *testing.T) {
	c := wsDial(t)
	if e := wsCall(t, c, "context.create", map[string]any{"context": map[string]any{"id": 9, "admins": []int{1}}}, nil); e != nil {
		t.Fatal(e)
	}
	var cx Context
	if e := wsCall(t, c, "context.load", map[string]any{"id": 9}, &cx); e != nil || cx.ID != 9 {
		t.Fatalf("context.load over WebSocket: %+v %v", cx, e)
	}
}

// orderFile is a file the jobs of a flow append their names to (when
// they run on this machine), and the python line that appends name.
func orderFile(t *testing.T) (string, func(name string) string) {
	path := filepath.Join(t.TempDir(), "order")
	return path, func(name string) string {
		return fmt.Sprintf("import time\ntime.sleep(0.2)\nopen(%q, 'a').write(%q)\n", path, name+"\n")
	}
}

func checkOrder(t *testing.T, path, want string) {
	t.Helper()
	if !target.local {
		return
	}
	if b, _ := os.ReadFile(path); string(b) != want {
		t.Fatalf("the jobs ran in the order %q, want %q", b, want)
	}
}

func waitFlow(t *testing.T, ctxID, id int) Flow {
	t.Helper()
	var f Flow
	eventually(t, "the flow to end", func() bool {
		call(t, "flow.load", map[string]any{"context_id": ctxID, "id": id}, &f)
		return f.Status == "finished" || f.Status == "error"
	})
	return f
}

// Seed 001/002 flows: jobs made with job.create naming in dependends the
// jobs that must finish first, flow.create {context_id, flow:{jobs}},
// flow.dag {context_id, id} (nodes, edges, roots, leaves, levels, node
// states, each node's supervisor_url once it ran), flow.start
// {context_id, id}: the jobs run as a DAG, each dispatched as a Message
// with the flow's flow_id pushed on msg_out (the pipeline), the flow ends
// finished, and starting it again changes nothing.
func TestFlowTheSeedWay(t *testing.T) {
	newContext(t, 7)
	path, script := orderFile(t)
	for id, deps := range map[int][]int{11: nil, 12: {11}, 13: {11, 12}} {
		call(t, "job.create", map[string]any{"context_id": 7, "job": map[string]any{"id": id, "caller_id": 1,
			"script": script(strconv.Itoa(id)), "script_type": "python", "dependends": deps}}, nil)
	}
	var f Flow
	call(t, "flow.create", map[string]any{"context_id": 7, "flow": map[string]any{"id": 33, "caller_id": 1,
		"context_id": 7, "jobs": []int{11, 12, 13}, "env_vars": map[string]string{}}}, &f)
	if f.ID != 33 || !slices.Equal(f.Jobs, []uint32{11, 12, 13}) || f.Status != "dispatched" {
		t.Fatalf("flow.create: %+v", f)
	}
	var d DAG
	call(t, "flow.dag", map[string]any{"context_id": 7, "id": 33}, &d)
	if !slices.Equal(d.Roots, []uint32{11}) || !slices.Equal(d.Leaves, []uint32{13}) || len(d.Edges) != 3 ||
		len(d.Levels) != 3 || len(d.Nodes) != 3 || !slices.Equal(d.Nodes["13"].Depends, []uint32{11, 12}) {
		t.Fatalf("flow.dag: %+v", d)
	}
	var started bool
	call(t, "flow.start", map[string]any{"context_id": 7, "id": 33}, &started)
	if !started {
		t.Fatal("flow.start of a created flow answered false")
	}
	if f = waitFlow(t, 7, 33); f.Status != "finished" {
		t.Fatalf("flow ended %+v", f)
	}
	checkOrder(t, path, "11\n12\n13\n")
	call(t, "flow.dag", map[string]any{"context_id": 7, "id": 33}, &d)
	for id, n := range d.Nodes {
		if n.NodeStatus != "completed" {
			t.Errorf("node %s is %s after the flow finished", id, n.NodeStatus)
		}
		if n.SupervisorURL == nil || *n.SupervisorURL == "" { // seed 002 FlowNode: where the job was routed
			t.Errorf("node %s has no supervisor_url after it ran", id)
		}
	}
	flowMessages(t, db(t, 7), "33", 11, 12, 13)
	if call(t, "flow.start", map[string]any{"context_id": 7, "id": 33}, &started); started {
		t.Fatal("flow.start of a finished flow answered true")
	}
	if st, _ := db(t, 7).HGet(t.Context(), "flow:33", "status").Result(); st != "finished" {
		t.Fatalf("flow:33 status in Redis %q", st)
	}
}

// Seed 001: every object is a Redis hash. A flow written straight into
// Redis — job hashes with dependends, a flow hash with jobs — starts with
// flow.start and runs as a DAG.
func TestFlowFromRedisHashes(t *testing.T) {
	newContext(t, 8)
	path, script := orderFile(t)
	r := db(t, 8)
	ctx := t.Context()
	for id, deps := range map[int]string{21: "[]", 22: "[21]"} {
		err := r.HSet(ctx, fmt.Sprintf("job:1:%d", id), "id", id, "caller_id", 1, "context_id", 8,
			"script", script(strconv.Itoa(id)), "script_type", "python", "timeout", 60, "retries", 0,
			"env_vars", "{}", "result", "{}", "prerequisites", "[]", "dependends", deps, "status", "dispatched").Err()
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := r.HSet(ctx, "flow:44", "id", 44, "caller_id", 1, "context_id", 8, "jobs", "[22,21]",
		"env_vars", "{}", "result", "{}", "status", "dispatched").Err(); err != nil {
		t.Fatal(err)
	}
	var started bool
	call(t, "flow.start", map[string]any{"context_id": 8, "id": 44}, &started)
	if !started {
		t.Fatal("flow.start answered false")
	}
	if f := waitFlow(t, 8, 44); f.Status != "finished" {
		t.Fatalf("flow ended %+v", f)
	}
	checkOrder(t, path, "21\n22\n")
	for _, k := range []string{"job:1:21", "job:1:22"} {
		if st, _ := r.HGet(ctx, k, "status").Result(); st != "finished" {
			t.Errorf("%s status %q", k, st)
		}
	}
}

// Seed 002: the coordinator hands a job to a supervisor with job.run
// {job:{…}} (and the runner's secret); the job runs in its context_id and
// its status and result land on job:<caller_id>:<id>.
func TestJobRunAsTheCoordinatorSendsIt(t *testing.T) {
	newContext(t, 11)
	call(t, "job.run", map[string]any{"secret": "s3cret", "job": map[string]any{"id": 31, "caller_id": 1, "context_id": 11,
		"script": "print('ran')", "script_type": "python", "timeout": 60}}, nil)
	var j Job
	eventually(t, "job 31 to end", func() bool {
		call(t, "job.load", map[string]any{"context_id": 11, "caller_id": 1, "id": 31}, &j)
		return j.Status == "finished" || j.Status == "error"
	})
	if j.Status != "finished" {
		t.Fatalf("job 31 ended %+v", j)
	}
	if st, _ := db(t, 11).HGet(t.Context(), "job:1:31", "status").Result(); st != "finished" {
		t.Fatalf("job:1:31 status in Redis %q", st)
	}
}

// flowMessages checks seed 002's pipeline: every job of flow flowID was
// dispatched as a Message (message:<caller>:<id>) carrying it, with the
// flow's flow_id, and the message is no longer waiting (dispatched).
func flowMessages(t *testing.T, c *redis.Client, flowID string, jobs ...int) {
	t.Helper()
	ctx := t.Context()
	seen := map[int]string{}
	for _, k := range c.Keys(ctx, "message:*").Val() {
		h := c.HGetAll(ctx, k).Val()
		if h["flow_id"] != flowID {
			continue
		}
		var embedded []map[string]any
		if err := json.Unmarshal([]byte(h["job"]), &embedded); err != nil || len(embedded) != 1 {
			t.Errorf("%s: job %q is not one job (%v)", k, h["job"], err)
			continue
		}
		id, _ := strconv.Atoi(fmt.Sprint(embedded[0]["id"])) // a number, or its digits
		seen[id] = h["status"]
	}
	for _, id := range jobs {
		st, ok := seen[id]
		switch {
		case !ok:
			t.Errorf("job %d of flow %s was not dispatched as a Message with flow_id %s", id, flowID, flowID)
		case st == "dispatched" || st == "":
			t.Errorf("the Message of job %d of flow %s is still %q", id, flowID, st)
		}
	}
}
