package executor_test

import (
	"strings"
	"testing"
)

// Result file lines that are not key=value are ignored and reported in
// result_warnings; the good ones become the result map.
func TestResultFileParsing(t *testing.T) {
	h := newHarness(t)
	h.start(t, h.config())
	c := h.client(t, 1)
	script := `cat > "$HYPHAE_RESULT" <<'X'
# a comment
name=snap-1

  spaced  = keeps value spaces 
this line is bad
=no key
url=http://x/?a=b
name=snap-2
X
echo out`
	got := waitEnd(t, c, submit(t, c, 1, 1, "sh", script))
	if got["status"] != "finished" {
		t.Fatalf("status %q error %q", got["status"], got["error"])
	}
	res := resultOf(t, got)
	if res["name"] != "snap-2" || res["spaced"] != " keeps value spaces " || res["url"] != "http://x/?a=b" {
		t.Fatalf("result %v", res)
	}
	w := res["result_warnings"]
	if !strings.HasPrefix(w, "2 bad result line(s) ignored") || !strings.Contains(w, `line 5: "this line is bad"`) ||
		!strings.Contains(w, `line 6: "=no key"`) {
		t.Fatalf("result_warnings %q", w)
	}
	if res["stdout"] != "out\n" || res["exit_code"] != "0" {
		t.Fatalf("stdout/exit_code %v", res)
	}
	if len(res) != 6 {
		t.Fatalf("unexpected keys: %v", res)
	}
}

// stdout beyond StdoutCap is cut, with a marker saying how much was kept.
func TestStdoutCap(t *testing.T) {
	h := newHarness(t)
	cfg := h.config()
	cfg.StdoutCap = 100
	h.start(t, cfg)
	c := h.client(t, 1)
	got := waitEnd(t, c, submit(t, c, 1, 1, "sh", `i=0; while [ $i -lt 50 ]; do echo "line $i"; i=$((i+1)); done`))
	out := resultOf(t, got)["stdout"]
	if !strings.HasPrefix(out, "line 0\nline 1\n") || !strings.Contains(out, "[hyphae] stdout truncated: first 100 of 390 bytes kept") {
		t.Fatalf("stdout %q", out)
	}
}
