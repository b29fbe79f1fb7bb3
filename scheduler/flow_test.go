package scheduler_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hyphae-run/hyphae/context/model"
)

func TestLinearChain(t *testing.T) {
	e := newEnv(t, 2)
	s := e.sched(t, e.config())
	log := filepath.Join(t.TempDir(), "order")
	fl := e.run(t, s, fmt.Sprintf(`
name: chain
env: {LOG: %s}
jobs:
  a: {type: sh, script: 'echo a >> "$LOG"; echo "n=1" >> "$HYPHAE_RESULT"'}
  b: {type: sh, needs: a, script: 'echo b >> "$LOG"; echo "n=$((HYPHAE_IN_A_N + 1))" >> "$HYPHAE_RESULT"'}
  c: {type: sh, needs: [b], script: 'echo c >> "$LOG"; echo "n=$((HYPHAE_IN_B_N + 1))" >> "$HYPHAE_RESULT"'}
`, log))
	st := e.wait(t, s, fl.ID)
	wantFlow(t, st, model.FlowFinished)
	if got := readFile(t, log); got != "a\nb\nc\n" {
		t.Fatalf("jobs ran in order %q, want a b c", got)
	}
	if st.Result["c.n"] != "3" || st.Result["a.n"] != "1" {
		t.Fatalf("flow result %v: want a.n=1 … c.n=3", st.Result)
	}
	if st.Progress.Completed != 3 || st.Progress.Done != 3 {
		t.Fatalf("progress %+v", st.Progress)
	}
}

func TestDiamond(t *testing.T) {
	e := newEnv(t, 3)
	s := e.sched(t, e.config())
	log := filepath.Join(t.TempDir(), "order")
	fl := e.run(t, s, fmt.Sprintf(`
env: {LOG: %s}
jobs:
  top:   {type: sh, script: 'echo top >> "$LOG"; echo "v=t" >> "$HYPHAE_RESULT"'}
  left:  {type: sh, needs: top, script: 'echo left >> "$LOG"; echo "v=${HYPHAE_IN_TOP_V}l" >> "$HYPHAE_RESULT"'}
  right: {type: sh, needs: top, script: 'echo right >> "$LOG"; echo "v=${HYPHAE_IN_TOP_V}r" >> "$HYPHAE_RESULT"'}
  join:  {type: sh, needs: [left, right], script: 'echo join >> "$LOG"; echo "v=$HYPHAE_IN_LEFT_V+$HYPHAE_IN_RIGHT_V" >> "$HYPHAE_RESULT"'}
`, log))
	st := e.wait(t, s, fl.ID)
	wantFlow(t, st, model.FlowFinished)
	if st.Result["join.v"] != "tl+tr" {
		t.Fatalf("join saw %q, want tl+tr", st.Result["join.v"])
	}
	order := strings.Fields(readFile(t, log))
	if len(order) != 4 || order[0] != "top" || order[3] != "join" {
		t.Fatalf("order %v: want top first and join last", order)
	}
	if j := job(t, st, "join"); j.Depth != 2 || len(j.Needs) != 2 {
		t.Fatalf("join: depth %d needs %v", j.Depth, j.Needs)
	}
}

func TestWideFanOut(t *testing.T) {
	e := newEnv(t, 4)
	s := e.sched(t, e.config())
	var b strings.Builder
	b.WriteString("jobs:\n  root: {type: sh, script: 'echo \"seed=7\" >> \"$HYPHAE_RESULT\"'}\n")
	for i := 0; i < 200; i++ {
		fmt.Fprintf(&b, "  w%03d: {type: sh, needs: root, script: 'echo \"v=$((HYPHAE_IN_ROOT_SEED * %d))\" >> \"$HYPHAE_RESULT\"'}\n", i, i)
	}
	b.WriteString("  sum:\n    type: sh\n    needs: [")
	for i := 0; i < 200; i++ {
		fmt.Fprintf(&b, "w%03d, ", i)
	}
	b.WriteString("]\n    script: 'env | grep -c \"^HYPHAE_IN_W[0-9]*_V=\" | sed \"s/^/count=/\" >> \"$HYPHAE_RESULT\"'\n")
	fl := e.run(t, s, b.String())
	st := e.wait(t, s, fl.ID)
	wantFlow(t, st, model.FlowFinished)
	if st.Progress.Completed != 202 {
		t.Fatalf("completed %d of 202", st.Progress.Completed)
	}
	if st.Result["w199.v"] != "1393" || st.Result["sum.count"] != "200" {
		t.Fatalf("w199.v=%q sum.count=%q, want 1393 and 200", st.Result["w199.v"], st.Result["sum.count"])
	}
	for i := 0; i < 200; i++ {
		if n := e.w.count(fmt.Sprintf("w%03d", i)); n != 1 {
			t.Fatalf("w%03d ran %d times", i, n)
		}
	}
}

func TestResultEnvNames(t *testing.T) {
	e := newEnv(t, 1)
	s := e.sched(t, e.config())
	fl := e.run(t, s, `
env: {A: flow, B: flow}
jobs:
  fetch-data: {type: sh, script: 'echo "file.name=x.csv" >> "$HYPHAE_RESULT"; echo "row-count=3" >> "$HYPHAE_RESULT"'}
  use:
    type: sh
    needs: fetch-data
    env: {B: job}
    script: 'echo "got=$HYPHAE_IN_FETCH_DATA_FILE_NAME/$HYPHAE_IN_FETCH_DATA_ROW_COUNT/$A/$B" >> "$HYPHAE_RESULT"'
`)
	st := e.wait(t, s, fl.ID)
	wantFlow(t, st, model.FlowFinished)
	if got := st.Result["use.got"]; got != "x.csv/3/flow/job" {
		t.Fatalf("use saw %q, want x.csv/3/flow/job", got)
	}
	if st.Result["fetch-data.file.name"] != "x.csv" {
		t.Fatalf("flow result %v lacks fetch-data.file.name", st.Result)
	}
}

func TestRetries(t *testing.T) {
	e := newEnv(t, 1)
	s := e.sched(t, e.config())
	marker := filepath.Join(t.TempDir(), "tried")
	fl := e.run(t, s, fmt.Sprintf(`
jobs:
  flaky:
    type: sh
    retries: 2
    script: 'if [ ! -e %[1]s ]; then touch %[1]s; exit 1; fi; echo "ok=yes" >> "$HYPHAE_RESULT"'
  after: {type: sh, needs: flaky, script: 'echo "saw=$HYPHAE_IN_FLAKY_OK" >> "$HYPHAE_RESULT"'}
`, marker))
	st := e.wait(t, s, fl.ID)
	wantFlow(t, st, model.FlowFinished)
	if j := job(t, st, "flaky"); j.Attempt != 2 || e.w.count("flaky") != 2 {
		t.Fatalf("flaky: attempt %d, ran %d times; want 2 and 2", j.Attempt, e.w.count("flaky"))
	}
	if st.Result["after.saw"] != "yes" {
		t.Fatalf("after saw %q", st.Result["after.saw"])
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read %s: %v", path, err)
	}
	return string(b)
}
