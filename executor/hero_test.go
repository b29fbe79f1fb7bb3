package executor_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// A hero dispatcher client (DB 0, raw commands) gets its job run and the
// result on hero:reply:<id>.
func TestHeroRoundTrip(t *testing.T) {
	h := newHarness(t)
	cfg := h.config()
	cfg.WorkerID = "w1"
	h.start(t, cfg)
	c := h.client(t, 0)
	ctx := context.Background()
	id := "3f1c2a9e-8d4b-4c1a-9e2f-0a1b2c3d4e5f"
	now := time.Now().UTC().Format(time.RFC3339)
	if err := c.HSet(ctx, "hero:job:"+id, "id", id, "script", `echo "hi $WHO"; echo "n=1" >> "$HYPHAE_RESULT"`,
		"script_type", "sh", "env_vars", `{"WHO":"hero"}`, "timeout", "30", "status", "dispatched",
		"created_at", now, "updated_at", now).Err(); err != nil {
		t.Fatal(err)
	}
	if err := c.LPush(ctx, "hero:work_queue:w1", id).Err(); err != nil {
		t.Fatal(err)
	}
	res, err := c.BLPop(ctx, waitLimit, "hero:reply:"+id).Result()
	if err != nil {
		t.Fatal(err)
	}
	if res[1] != "hi hero\n" { // seed 004: the reply is the raw output
		t.Fatalf("reply %q", res[1])
	}
	hj := c.HGetAll(ctx, "hero:job:"+id).Val()
	var result map[string]string
	_ = json.Unmarshal([]byte(hj["result"]), &result)
	if hj["status"] != "finished" || hj["output"] != "hi hero\n" || hj["error"] != "" || hj["worker_id"] != "w1" ||
		hj["exit_code"] != "0" || result["n"] != "1" {
		t.Fatalf("hero job hash %v", hj)
	}
	if _, err := time.Parse(time.RFC3339, hj["updated_at"]); err != nil {
		t.Fatalf("updated_at %q: %v", hj["updated_at"], err)
	}
	c.HSet(ctx, "hero:job:n1", "id", "n1", "script_type", "noop")
	c.LPush(ctx, "hero:work_queue:w1", "n1")
	if res, err := c.BLPop(ctx, waitLimit, "hero:reply:n1").Result(); err != nil || res[1] != "" ||
		c.HGet(ctx, "hero:job:n1", "status").Val() != "finished" {
		t.Fatalf("noop hero job: %v %v", res, err)
	}
	if n := c.LLen(ctx, "hero:processing:w1").Val(); n != 0 {
		t.Fatalf("hero processing list keeps %d", n)
	}
}

// hero:stop_queue:<worker> stops a running hero job (seed 004's
// "stopped_by_request"); a job of a type the worker lacks, or a missing
// hash, is answered with an error.
func TestHeroStopAndErrors(t *testing.T) {
	h := newHarness(t)
	cfg := h.config()
	cfg.WorkerID = "w1"
	h.start(t, cfg)
	c := h.client(t, 0)
	ctx := context.Background()
	marks := t.TempDir()
	c.HSet(ctx, "hero:job:long", "id", "long", "script", `touch `+marks+`/started; while :; do sleep 1; done`)
	c.HSet(ctx, "hero:job:odd", "id", "odd", "script", "x", "script_type", "cobol")
	c.LPush(ctx, "hero:work_queue:w1", "long", "odd", "ghost")
	waitFile(t, filepath.Join(marks, "started"))
	c.LPush(ctx, "hero:stop_queue:w1", "long")
	for id, want := range map[string]string{
		"long":  "stopped_by_request",
		"odd":   `no runner on this agent (runner-a) serves script type "cobol"; it has: bash, noop, python, sh`,
		"ghost": "hero job hero:job:ghost not found",
	} {
		res, err := c.BLPop(ctx, waitLimit, "hero:reply:"+id).Result()
		if err != nil {
			t.Fatal(id, err)
		}
		if res[1] != "error: "+want {
			t.Fatalf("%s: reply %q", id, res[1])
		}
		if id != "ghost" {
			if hj := c.HGetAll(ctx, "hero:job:"+id).Val(); hj["status"] != "error" || hj["error"] != want {
				t.Fatalf("%s: hash %v", id, hj)
			}
		}
	}
	_ = os.Remove(filepath.Join(marks, "started"))
}
