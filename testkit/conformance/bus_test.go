package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// Seed 000 §2 and §4 across two agents (bus_agents_test.go): bob's actor
// (caller 1 on bob) writes messages in his context 1 and pushes them on
// msg_out; they cross to alice, whose context 1 grants bob executor.
// Written only from the seed documents, as a seed client does it: raw
// HSET/LPUSH, raw JSON-RPC. Message and job ids are unique per test.

const busCtx = 1

// busJob is a RunnerJob as seed 001 writes it, embedded in a message.
func busJob(id, ctxID int, scriptType, script string, extra map[string]any) map[string]any {
	j := map[string]any{"id": id, "caller_id": 1, "context_id": ctxID, "script": script,
		"script_type": scriptType, "timeout": 60, "retries": 0, "env_vars": map[string]string{},
		"result": map[string]string{}, "prerequisites": []string{}, "dependends": []int{}, "status": "dispatched"}
	for k, v := range extra {
		j[k] = v
	}
	return j
}

// push is the actor's step 1 on c: HSET message:1:<id> with fields (the
// seed's defaults for those not given; no dst unless given) and LPUSH
// msg_out. jobs may be nil (a chat line).
func push(t *testing.T, c *redis.Client, ctxID, msgID int, fields map[string]any, jobs ...map[string]any) string {
	t.Helper()
	h := map[string]any{"id": msgID, "caller_id": 1, "context_id": ctxID, "message": "",
		"message_type": "job", "message_format_type": "text", "timeout": 60, "timeout_ack": 10,
		"timeout_result": 60, "logs": "[]", "status": "dispatched"}
	if jobs == nil {
		jobs = []map[string]any{}
	}
	b, _ := json.Marshal(jobs)
	h["job"] = string(b)
	for k, v := range fields {
		h[k] = v
	}
	key := fmt.Sprintf("message:1:%d", msgID)
	if err := c.HSet(t.Context(), key, h).Err(); err != nil {
		t.Fatal(err)
	}
	if err := c.LPush(t.Context(), "msg_out", key).Err(); err != nil {
		t.Fatal(err)
	}
	return key
}

// arrived waits up to d for a hash in c whose key matches pattern and
// for which match holds; it returns the key and the hash, or "" and nil.
func arrived(c *redis.Client, d time.Duration, pattern string, match func(map[string]string) bool) (string, map[string]string) {
	ctx := context.Background()
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
		for _, k := range c.Keys(ctx, pattern).Val() {
			if h := c.HGetAll(ctx, k).Val(); match(h) {
				return k, h
			}
		}
	}
	return "", nil
}

// carries reports whether a message hash embeds a job whose script is
// script (ids may not survive the crossing; the script does).
func carries(script string) func(map[string]string) bool {
	return func(h map[string]string) bool {
		var jobs []map[string]any
		_ = json.Unmarshal([]byte(h["job"]), &jobs)
		return len(jobs) > 0 && jobs[0]["script"] == script
	}
}

// scripted reports whether a job hash has script.
func scripted(script string) func(map[string]string) bool {
	return func(h map[string]string) bool { return h["script"] == script }
}

// Issue 39 (1), seed 000 §4 ("the same message:12:101 on both sides"):
// bob's message:1:501 carrying job 5001 arrives on alice as
// message:<caller>:501 and job:<caller>:5001, caller being 1 or alice's
// actor id for bob's key.
func TestBusMessageAndJobIDsKept(t *testing.T) {
	gapped(t)
	t.Parallel()
	alice, bob := busAgents(t)
	push(t, bob.db(t, busCtx), busCtx, 501, map[string]any{"dst": alice.peer},
		busJob(5001, busCtx, "python", "print(5001)", nil))
	ac := alice.db(t, busCtx)
	if k, _ := arrived(ac, 30*time.Second, "message:*", carries("print(5001)")); k == "" {
		t.Fatal("no message carrying job 5001 arrived on alice")
	} else if !strings.HasSuffix(k, ":501") {
		t.Errorf("job 5001 arrived in %s, want message:<caller>:501", k)
	}
	if k, _ := arrived(ac, 5*time.Second, "job:*", scripted("print(5001)")); k == "" {
		t.Error("job 5001 never reached alice")
	} else if !strings.HasSuffix(k, ":5001") {
		t.Errorf("job 5001 arrived as %s, want job:<caller>:5001", k)
	}
}

// Issue 39 (1), seed 001 Message: timeout, timeout_ack and timeout_result
// travel with the message.
func TestBusMessageTimeoutsKept(t *testing.T) {
	gapped(t)
	t.Parallel()
	alice, bob := busAgents(t)
	push(t, bob.db(t, busCtx), busCtx, 511, map[string]any{"dst": alice.peer, "timeout": 47,
		"timeout_ack": 23, "timeout_result": 51}, busJob(5011, busCtx, "python", "print(5011)", nil))
	k, h := arrived(alice.db(t, busCtx), 30*time.Second, "message:*", carries("print(5011)"))
	if k == "" {
		t.Fatal("no message carrying job 5011 arrived on alice")
	}
	if h["timeout"] != "47" || h["timeout_ack"] != "23" || h["timeout_result"] != "51" {
		t.Fatalf("%s on alice: timeout %q timeout_ack %q timeout_result %q, want 47 23 51",
			k, h["timeout"], h["timeout_ack"], h["timeout_result"])
	}
}

// Issue 39 (2), seed 001 Message ("a chat line, an email"): a chat message
// on msg_out has no dst (no seed names one); it is routed as a job
// without one is, to the context's registered runner (alice).
func TestBusChatWithoutDstArrives(t *testing.T) {
	gapped(t)
	t.Parallel()
	alice, bob := busAgents(t)
	bc := bob.db(t, busCtx)
	key := push(t, bc, busCtx, 521, map[string]any{"message_type": "chat", "message": "hello alice 521"})
	k, _ := arrived(alice.db(t, busCtx), 30*time.Second, "message:*", func(h map[string]string) bool {
		return h["message"] == "hello alice 521"
	})
	if k == "" {
		t.Fatalf("the chat never reached alice; on bob %s is %v", key, bc.HGetAll(t.Context(), key).Val())
	}
}

// Issue 39 (2), seed 002 message.create: a message without dst is stored.
func TestBusMessageCreateWithoutDst(t *testing.T) {
	gapped(t)
	t.Parallel()
	_, bob := busAgents(t)
	e := bob.call(t, "message.create", map[string]any{"context_id": busCtx, "message": map[string]any{
		"id": 531, "caller_id": 1, "context_id": busCtx, "message": "hi", "message_type": "chat",
		"message_format_type": "text", "timeout": 60, "timeout_ack": 10, "timeout_result": 60,
		"job": []any{}, "logs": []string{}}}, nil)
	if e != nil {
		t.Fatalf("message.create of a chat without dst: %v", e)
	}
	if n := bob.db(t, busCtx).Exists(t.Context(), "message:1:531").Val(); n != 1 {
		t.Fatal("message.create answered, but message:1:531 is not stored")
	}
}

// Issue 39 (3), seed 000 §4 and seed 001 Runner (local: true consumes
// queue:<type>): bob sends a v job without dst; alice, his registered
// runner of context 1, has an external worker for it; the worker takes
// it from queue:v, finishes it, and the result comes home to bob.
func TestBusVJobToRemoteExternalWorker(t *testing.T) {
	gapped(t)
	t.Parallel()
	alice, bob := busAgents(t)
	if e := alice.call(t, "runner.create", map[string]any{"context_id": busCtx,
		"runner": map[string]any{"id": 40, "local": true, "address": "", "topic": ""}}, nil); e != nil {
		t.Fatalf("runner.create on alice: %v", e)
	}
	bc, ac := bob.db(t, busCtx), alice.db(t, busCtx)
	key := push(t, bc, busCtx, 541, nil, busJob(5041, busCtx, "v", "println('v')", nil))
	kv, err := ac.BRPop(t.Context(), 30*time.Second, "queue:v").Result()
	if err != nil {
		t.Fatalf("alice's worker got nothing on queue:v (%v); on bob %s is %v", err, key, bc.HGetAll(t.Context(), key).Val())
	}
	if err := ac.HSet(t.Context(), kv[1], "result", `{"v":"ok"}`, "status", "finished").Err(); err != nil {
		t.Fatal(err)
	}
	eventually(t, "job 5041 finished on bob", func() bool {
		return bc.HGet(context.Background(), "job:1:5041", "status").Val() == "finished"
	})
}

// Issue 39 (4), seed 001 Message timeout ("seconds allowed"): a message
// with timeout 4 to a runner that cannot be reached ends error, with the
// reason, in about that time; timeout_ack 3 likewise.
func TestBusMessageTimeoutToUnreachable(t *testing.T) {
	gapped(t)
	t.Parallel()
	_, bob := busAgents(t)
	bc := bob.db(t, busCtx)
	for _, c := range []struct {
		name   string
		id     int
		within time.Duration // the time-out given, and a little
		fields map[string]any
	}{
		{"timeout", 551, 7 * time.Second, map[string]any{"timeout": 4}},
		{"timeout_ack", 552, 6 * time.Second, map[string]any{"timeout_ack": 3}},
	} {
		t.Run(c.name, func(t *testing.T) {
			gapped(t)
			t.Parallel()
			c.fields["dst"] = bus.carol
			key := push(t, bc, busCtx, c.id, c.fields, busJob(c.id*10, busCtx, "python", "print(1)", nil))
			start := time.Now()
			for time.Since(start) < c.within && bc.HGet(t.Context(), key, "status").Val() != "error" {
				time.Sleep(100 * time.Millisecond)
			}
			h := bc.HGetAll(t.Context(), key).Val()
			if h["status"] != "error" || h["error"] == "" {
				t.Errorf("%s (%v) to an unreachable runner after %s: status %q error %q, want error with a reason",
					key, c.fields, time.Since(start).Round(time.Second), h["status"], h["error"])
			}
		})
	}
}

// Issue 39 (5), seed 000 §4 (the job goes to the remote tenant): in bob's
// context 2 the only registered runner (carol) is down. A job message
// without dst waits for it within the message's time-outs, then ends
// error; it does not run on bob, who is not a runner of context 2.
func TestBusDownRunnerHoldsMessage(t *testing.T) {
	gapped(t)
	t.Parallel()
	_, bob := busAgents(t)
	const ctx2 = 2
	bc := bob.db(t, ctx2)
	key := push(t, bc, ctx2, 561, map[string]any{"timeout": 5, "timeout_ack": 5},
		busJob(5061, ctx2, "python", "print(5061)", nil))
	time.Sleep(2 * time.Second)
	if st := bc.HGet(t.Context(), "job:1:5061", "status").Val(); st == "started" || st == "finished" {
		t.Fatalf("job 5061 ran on bob (%s) while context 2's runner is down", st)
	}
	for end := time.Now().Add(12 * time.Second); time.Now().Before(end); time.Sleep(200 * time.Millisecond) {
		if bc.HGet(t.Context(), key, "status").Val() == "error" {
			break
		}
	}
	h := bc.HGetAll(t.Context(), key).Val()
	if h["status"] != "error" || h["error"] == "" {
		t.Fatalf("%s after its time-outs: status %q error %q, want error with a reason", key, h["status"], h["error"])
	}
	if st := bc.HGet(t.Context(), "job:1:5061", "status").Val(); st == "finished" {
		t.Fatal("job 5061 finished on bob")
	}
}

// Issue 39 (6), seed 003 ("trace correlation via propagated trace_id"):
// a trace_id a client sets on the message and job, plain hex or a W3C
// traceparent, is the remote job's trace.
func TestBusTraceIDCarried(t *testing.T) {
	gapped(t)
	t.Parallel()
	alice, bob := busAgents(t)
	const hexID = "4bf92f3577b34da6a3ce929d0e0e4736"
	for i, tid := range []string{hexID, "00-" + hexID + "-00f067aa0ba902b7-01"} {
		id := 571 + i
		push(t, bob.db(t, busCtx), busCtx, id, map[string]any{"dst": alice.peer, "trace_id": tid},
			busJob(id*10, busCtx, "python", fmt.Sprintf("print(%d)", id), map[string]any{"trace_id": tid}))
		k, h := arrived(alice.db(t, busCtx), 30*time.Second, "job:*", scripted(fmt.Sprintf("print(%d)", id)))
		if k == "" {
			t.Fatalf("job %d never reached alice", id*10)
		}
		if !strings.Contains(h["trace_id"], hexID) {
			t.Errorf("trace_id %q sent, %s on alice has trace_id %q", tid, k, h["trace_id"])
		}
	}
}

// Issue 39, DESIGN §8 (the API token on TCP): a request without the token
// is refused with 401; with it, it is answered.
func TestBusRequestWithoutToken(t *testing.T) {
	gapped(t)
	t.Parallel()
	alice, _ := busAgents(t)
	code, body, err := alice.raw("/", "context.load", map[string]any{"id": busCtx}, false)
	if err != nil || code != http.StatusUnauthorized {
		t.Fatalf("context.load without the token: %d %s (%v), want 401", code, body, err)
	}
	if !alice.answers() {
		t.Fatal("context.load with the token is not answered")
	}
}
