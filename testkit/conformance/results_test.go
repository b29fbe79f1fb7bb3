package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// Seed 000 §4–5 and seed 001 Runner/Message, on one agent with raw Redis:
// an actor sends a job by a message on msg_out; an external worker (a
// runner record with local: true) BRPOPs it from queue:<script_type> and
// reports by HSET or by a result message on msg_out; the result comes
// back as a result message on msg_in, which the actor RPOPs.
// Contexts used here: 13 (messages and runners), 14 (a context written
// only in its own DB).

const resultsCtx = 13

// resultsContext makes context 13 with an external worker (seed 001: a
// runner with local: true) for script type v, once per test binary.
func resultsContext(t *testing.T) *redis.Client {
	t.Helper()
	c := db(t, resultsCtx)
	if n, _ := c.Exists(t.Context(), fmt.Sprintf("context:%d", resultsCtx)).Result(); n == 0 {
		newContext(t, resultsCtx)
		call(t, "runner.create", map[string]any{"context_id": resultsCtx,
			"runner": map[string]any{"id": 30, "local": true, "address": "", "topic": ""}}, nil)
	}
	return c
}

// sendJob is the actor's step 1: HSET message:<caller>:<id> (type job,
// the job embedded) and LPUSH msg_out.
func sendJob(t *testing.T, c *redis.Client, msgID, jobID int, scriptType string) {
	t.Helper()
	job, _ := json.Marshal([]map[string]any{{"id": jobID, "caller_id": 1, "context_id": resultsCtx,
		"script": "println('hi')", "script_type": scriptType, "timeout": 60, "retries": 0,
		"env_vars": map[string]string{}, "result": map[string]string{}, "prerequisites": []string{},
		"dependends": []int{}, "status": "dispatched"}})
	key := fmt.Sprintf("message:1:%d", msgID)
	ctx := t.Context()
	if err := c.HSet(ctx, key, "id", msgID, "caller_id", 1, "context_id", resultsCtx, "message", "",
		"message_type", "job", "message_format_type", "text", "timeout", 60, "timeout_ack", 10,
		"timeout_result", 60, "job", string(job), "logs", "[]", "status", "dispatched").Err(); err != nil {
		t.Fatal(err)
	}
	if err := c.LPush(ctx, "msg_out", key).Err(); err != nil {
		t.Fatal(err)
	}
}

// take is the external worker: BRPOP queue:<scriptType>, HSET status
// started; it returns the job key.
func take(t *testing.T, c *redis.Client, scriptType string) string {
	t.Helper()
	kv, err := c.BRPop(t.Context(), time.Minute, "queue:"+scriptType).Result()
	if err != nil {
		t.Fatalf("BRPOP queue:%s: %v", scriptType, err)
	}
	if err := c.HSet(t.Context(), kv[1], "status", "started").Err(); err != nil {
		t.Fatal(err)
	}
	return kv[1]
}

// resultMessage is the actor's last step: RPOP msg_in until a result
// message comes (msg_in also records the messages that carried jobs here),
// and read it.
func resultMessage(t *testing.T, c *redis.Client) map[string]string {
	t.Helper()
	var h map[string]string
	eventually(t, "a result message on msg_in", func() bool {
		key, err := c.RPop(context.Background(), "msg_in").Result()
		if err != nil {
			return false
		}
		h, _ = c.HGetAll(context.Background(), key).Result()
		return h["message_type"] == "result"
	})
	return h
}

// embedded decodes a message's job field as the seed's []Job, with any
// JSON types.
func embedded(t *testing.T, h map[string]string) []map[string]any {
	t.Helper()
	var jobs []map[string]any
	if err := json.Unmarshal([]byte(h["job"]), &jobs); err != nil {
		t.Fatalf("message job %s: %v", h["job"], err)
	}
	return jobs
}

// str is a JSON value as text (a number or a string holding it).
func str(v any) string { return fmt.Sprint(v) }

// The worker ends the job by HSET (seed 000 step 4: "HSET job result +
// status = finished"); the actor RPOPs the result message from msg_in
// (step 6): message_type result, the finished job embedded, logs a list.
func TestResultComesHomeAsAMessageAfterHSet(t *testing.T) {
	c := resultsContext(t)
	sendJob(t, c, 701, 700, "v")
	key := take(t, c, "v")
	if err := c.HSet(t.Context(), key, "result", `{"answer":"42"}`, "status", "finished").Err(); err != nil {
		t.Fatal(err)
	}
	h := resultMessage(t, c)
	jobs := embedded(t, h)
	if len(jobs) != 1 || str(jobs[0]["id"]) != "700" || jobs[0]["status"] != "finished" {
		t.Fatalf("result message job = %v, want job 700 finished", jobs)
	}
	var logs []string
	if err := json.Unmarshal([]byte(h["logs"]), &logs); err != nil {
		t.Fatalf("result message logs %q: not a list (%v)", h["logs"], err)
	}
	var m Message
	call(t, "message.load", map[string]any{"context_id": resultsCtx, "caller_id": atoi(h["caller_id"]),
		"id": atoi(h["id"])}, &m)
	if m.MessageType != "result" || len(m.Job) != 1 || m.Job[0].Result["answer"] != "42" {
		t.Fatalf("message.load of the result: %+v", m)
	}
	if st, _ := c.HGet(t.Context(), "job:1:700", "status").Result(); st != "finished" {
		t.Fatalf("job:1:700 status %q, want finished", st)
	}
}

// The worker reports by a result message on msg_out instead (seed 000
// §4.3 step 7): it goes home like the HSET does, and is processed.
func TestResultMessageOnMsgOutComesHome(t *testing.T) {
	c := resultsContext(t)
	sendJob(t, c, 711, 710, "v")
	key := take(t, c, "v")
	var caller, id int
	if _, err := fmt.Sscanf(key, "job:%d:%d", &caller, &id); err != nil {
		t.Fatalf("job key %q: %v", key, err)
	}
	job, _ := json.Marshal([]map[string]any{{"id": id, "caller_id": caller, "context_id": resultsCtx,
		"status": "finished", "result": map[string]string{"answer": "7"}}})
	ctx := t.Context()
	if err := c.HSet(ctx, "message:1:712", "id", 712, "caller_id", 1, "context_id", resultsCtx,
		"message_type", "result", "message_format_type", "text", "job", string(job), "logs", "[]",
		"status", "dispatched").Err(); err != nil {
		t.Fatal(err)
	}
	c.LPush(ctx, "msg_out", "message:1:712")
	eventually(t, "job 710 finished", func() bool {
		return c.HGet(ctx, "job:1:710", "status").Val() == "finished"
	})
	if r := c.HGet(ctx, "job:1:710", "result").Val(); r != `{"answer":"7"}` {
		t.Fatalf("job:1:710 result %s", r)
	}
	eventually(t, "the worker's result message processed", func() bool {
		return c.HGet(ctx, "message:1:712", "status").Val() == "processed"
	})
}

// Seed 001 Runner: topic defaults to runner<id>.
func TestRunnerTopicDefaultsToRunnerID(t *testing.T) {
	resultsContext(t)
	call(t, "runner.create", map[string]any{"context_id": resultsCtx,
		"runner": map[string]any{"id": 31, "local": true}}, nil)
	var r Runner
	call(t, "runner.load", map[string]any{"context_id": resultsCtx, "id": 31}, &r)
	if r.Topic != "runner31" {
		t.Fatalf("runner 31 topic %q, want runner31", r.Topic)
	}
}

// Seed 000: a context is its own Redis DB. A client that writes context:14
// in DB 14 and a job on queue:python there, with no other call, gets the
// job run.
func TestContextWrittenInItsOwnDBIsServed(t *testing.T) {
	c := db(t, 14)
	ctx := t.Context()
	if err := c.HSet(ctx, "context:14", "id", 14, "admins", "[1]", "readers", "[]", "executors", "[1]",
		"created_at", time.Now().Unix(), "updated_at", time.Now().Unix()).Err(); err != nil {
		t.Fatal(err)
	}
	if err := c.HSet(ctx, "job:1:1400", "id", 1400, "caller_id", 1, "context_id", 14, "script", "print(14)",
		"script_type", "python", "timeout", 60, "retries", 0, "env_vars", "{}", "result", "{}",
		"prerequisites", "[]", "dependends", "[]", "status", "dispatched").Err(); err != nil {
		t.Fatal(err)
	}
	c.LPush(ctx, "queue:python", "job:1:1400")
	eventually(t, "job 1400 to end", func() bool {
		st := c.HGet(ctx, "job:1:1400", "status").Val()
		return st == "finished" || st == "error"
	})
	if st := c.HGet(ctx, "job:1:1400", "status").Val(); st != "finished" {
		t.Fatalf("job:1:1400 in a context written in its own DB: %s", st)
	}
}

func atoi(s string) int {
	var n int
	fmt.Sscan(s, &n)
	return n
}
