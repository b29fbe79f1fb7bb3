package executor_test

import (
	"context"
	"testing"
)

// The job sees PATH, the flow's env_vars, its own env_vars (winning over
// the flow's) and HYPHAE_*, and nothing else of the agent's environment.
func TestEnvMerging(t *testing.T) {
	t.Setenv("HYPHAE_TEST_AGENT_SECRET", "leak")
	h := newHarness(t)
	h.start(t, h.config())
	c := h.client(t, 1)
	ctx := context.Background()
	if err := c.HSet(ctx, "flow:5", "id", 5, "caller_id", 9, "context_id", 1, "status", "started",
		"env_vars", `{"FROM_FLOW":"f","BOTH":"flow","HYPHAE_JOB_ID":"forged"}`).Err(); err != nil {
		t.Fatal(err)
	}
	script := `for v in FROM_FLOW FROM_JOB BOTH HYPHAE_JOB_ID HYPHAE_CONTEXT_ID HYPHAE_CALLER_ID HYPHAE_ATTEMPT HYPHAE_TEST_AGENT_SECRET; do
  eval "echo $v=\${$v-unset}" >> "$HYPHAE_RESULT"
done
echo "result_path=$HYPHAE_RESULT" >> "$HYPHAE_RESULT"
echo "has_path=${PATH:+yes}" >> "$HYPHAE_RESULT"`
	key := submit(t, c, 9, 3, "sh", script, "flow_id", 5,
		"env_vars", `{"FROM_JOB":"j","BOTH":"job"}`)
	got := waitEnd(t, c, key)
	if got["status"] != "finished" {
		t.Fatalf("status %q error %q", got["status"], got["error"])
	}
	res := resultOf(t, got)
	want := map[string]string{
		"FROM_FLOW": "f", "FROM_JOB": "j", "BOTH": "job",
		"HYPHAE_JOB_ID": "3", "HYPHAE_CONTEXT_ID": "1", "HYPHAE_CALLER_ID": "9", "HYPHAE_ATTEMPT": "1",
		"HYPHAE_TEST_AGENT_SECRET": "unset", "has_path": "yes",
		"result_path": jobDir(h.dir, 1, 9, 3, 1) + "/result",
	}
	for k, v := range want {
		if res[k] != v {
			t.Errorf("%s = %q, want %q", k, res[k], v)
		}
	}
}
