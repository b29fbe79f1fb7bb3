package executor_test

import (
	"context"
	"encoding/json"
	"testing"
)

// A job of a run an event started (HYPHAE_EVENT in its flow's env) finds
// the same payload in the file HYPHAE_EVENT_FILE names, in its job
// directory; a job with no event has neither.
func TestEventFile(t *testing.T) {
	h := newHarness(t)
	h.start(t, h.config())
	c := h.client(t, 1)
	ctx := context.Background()
	payload := `{"order_id":"o-1","note":"a 'quoted' $word"}`
	env, _ := json.Marshal(map[string]string{"HYPHAE_EVENT": payload})
	if err := c.HSet(ctx, "flow:5", "id", 5, "caller_id", 9, "context_id", 1, "status", "started",
		"env_vars", string(env)).Err(); err != nil {
		t.Fatal(err)
	}
	script := `echo "file=$HYPHAE_EVENT_FILE" >> "$HYPHAE_RESULT"
printf 'content=%s\n' "$(cat "$HYPHAE_EVENT_FILE")" >> "$HYPHAE_RESULT"`
	got := waitEnd(t, c, submit(t, c, 9, 3, "sh", script, "flow_id", 5))
	if got["status"] != "finished" {
		t.Fatalf("status %q error %q", got["status"], got["error"])
	}
	res := resultOf(t, got)
	if want := jobDir(h.dir, 1, 9, 3, 1) + "/event.json"; res["file"] != want || res["content"] != payload {
		t.Fatalf("HYPHAE_EVENT_FILE %q holding %q; want %q holding %q", res["file"], res["content"], want, payload)
	}

	plain := `echo "file=${HYPHAE_EVENT_FILE-unset}" >> "$HYPHAE_RESULT"
if [ -e "$HOME/event.json" ]; then echo "found=yes" >> "$HYPHAE_RESULT"; fi`
	got = waitEnd(t, c, submit(t, c, 9, 4, "sh", plain))
	if res := resultOf(t, got); got["status"] != "finished" || res["file"] != "unset" || res["found"] != "" {
		t.Fatalf("a job with no event: %q %q, result %v; want no HYPHAE_EVENT_FILE, no file", got["status"], got["error"], res)
	}
}
