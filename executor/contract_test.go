package executor_test

import (
	"strings"
	"testing"
)

// A client that only knows the Redis contract submits sh and python jobs
// and reads status and result from the job hash.
func TestContractClientShAndPython(t *testing.T) {
	h := newHarness(t)
	h.start(t, h.config())
	c := h.client(t, 1)

	sh := submit(t, c, 7, 1, "sh", `echo "hello from sh"; echo "answer=42" >> "$HYPHAE_RESULT"; echo "greeting=a=b" >> "$HYPHAE_RESULT"`)
	py := submit(t, c, 7, 2, "python", `import os
print("hello from python")
with open(os.environ["HYPHAE_RESULT"], "a") as f:
    f.write("lang=python\n")`)

	for _, tc := range []struct{ key, stdout, k, v string }{
		{sh, "hello from sh\n", "answer", "42"},
		{py, "hello from python\n", "lang", "python"},
	} {
		got := waitEnd(t, c, tc.key)
		if got["status"] != "finished" || got["error"] != "" {
			t.Fatalf("%s: status %q error %q", tc.key, got["status"], got["error"])
		}
		res := resultOf(t, got)
		if res[tc.k] != tc.v || res["stdout"] != tc.stdout || res["exit_code"] != "0" {
			t.Fatalf("%s: result %v", tc.key, res)
		}
		if got["attempt"] != "1" || got["updated_at"] == "" {
			t.Fatalf("%s: hash %v", tc.key, got)
		}
	}
	if res := resultOf(t, waitEnd(t, c, sh)); res["greeting"] != "a=b" {
		t.Fatalf("value with '=': %q", res["greeting"])
	}
	if !strings.Contains(strings.Join(mustLRange(t, c, "logs:"+sh), "\n"), "hello from sh") {
		t.Fatal("log list lacks the output line")
	}
}
