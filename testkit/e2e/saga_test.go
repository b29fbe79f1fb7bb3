package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hyphae-run/hyphae/testkit/need"
)

// sagaOut is what `hyphae flow status --json` prints about compensation.
type sagaOut struct {
	Status            string `json:"status"`
	Error             string `json:"error"`
	Compensation      string `json:"compensation"`
	CompensationError string `json:"compensation_error"`
	Jobs              []struct {
		Name         string `json:"name"`
		Compensation *struct {
			State  string `json:"state"`
			Status string `json:"status"`
		} `json:"compensation"`
	} `json:"jobs"`
}

func (s *sagaOut) comp(name string) string {
	for _, j := range s.Jobs {
		if j.Name == name && j.Compensation != nil {
			return j.Compensation.State + "/" + j.Compensation.Status
		}
	}
	return ""
}

func sagaStatus(t *testing.T, a *flowAgent, id string) (sagaOut, bool) {
	out, _, err := hyTry("flow", "status", id, "--context", "1", "--json", "--data-dir", a.dir)
	var s sagaOut
	if err != nil {
		return s, false
	}
	decode(t, out, &s)
	return s, true
}

// A real kill -9 of the supervisor while a compensation runs (on R1, a
// runner-only agent): after the restart the flow takes that
// compensation's end, runs the next one (a's, after b's) and ends
// compensated, each compensation having run once.
func TestFlowCompensationSurvivesSupervisorKill9(t *testing.T) {
	t.Parallel()
	need.Tool(t, "redis-server", "redis-server")
	r1 := startFlowAgent(t, "r1", "bus: {timeout_ack: 300ms}\n", "--roles", "runner")
	s := startFlowAgent(t, "s", "bus: {timeout_ack: 300ms}\n", "--roles", "supervisor", "--bootstrap", r1.addr(t))
	s.hy(t, "context", "create", "--id", "1")
	r1.hy(t, "context", "create", "--id", "1")
	r1.hy(t, "context", "grant", "1", "--actor", s.peer, "--role", "executor")
	s.hy(t, "runner", "create", "1", "--peer", r1.peer)
	s.waitPeerUp(t, r1.peer, "sh")

	marks := t.TempDir()
	gate := filepath.Join(marks, "gate")
	flow := writeFlow(t, fmt.Sprintf(`
name: saga
context: 1
env: {MARKS: %[1]s}
jobs:
  a:
    type: sh
    script: 'echo "id=A1" >> "$HYPHAE_RESULT"'
    compensate: {type: sh, script: 'echo "undo-a $HYPHAE_RESULT_ID" >> "$MARKS/log"'}
  b:
    type: sh
    needs: a
    script: 'echo "id=B1" >> "$HYPHAE_RESULT"'
    compensate:
      type: sh
      script: 'echo start-b >> "$MARKS/log"; while [ ! -e %[2]s ]; do sleep 0.1; done; echo "undo-b $HYPHAE_RESULT_ID" >> "$MARKS/log"'
  c: {type: sh, needs: b, script: 'exit 3'}
`, marks, gate))
	var f flowOut
	decode(t, s.hy(t, "flow", "run", flow, "--json"), &f)
	id := strconv.FormatUint(f.ID, 10)
	log := func() string { b, _ := os.ReadFile(filepath.Join(marks, "log")); return string(b) }
	eventually(t, 60*time.Second, "b's compensation running", func() bool {
		st, ok := sagaStatus(t, s, id)
		return ok && st.Compensation == "compensating" && strings.Contains(log(), "start-b")
	})
	s.proc.kill9()
	if err := os.WriteFile(gate, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	eventually(t, 30*time.Second, "b's compensation to end with the supervisor down", func() bool {
		return strings.Contains(log(), "undo-b")
	})
	s.restart(t)
	var st sagaOut
	eventually(t, 60*time.Second, "the flow to end after the restart", func() bool {
		var ok bool
		st, ok = sagaStatus(t, s, id)
		return ok && (st.Status == "finished" || st.Status == "error")
	})
	if st.Status != "error" || st.Compensation != "compensated" {
		t.Fatalf("flow %s compensation %q (%s), want error and compensated", st.Status, st.Compensation, st.CompensationError)
	}
	if got := log(); got != "start-b\nundo-b B1\nundo-a A1\n" {
		t.Fatalf("compensations ran as %q, want b's once, then a's once", got)
	}
	for _, n := range []string{"a", "b"} {
		if c := st.comp(n); c != "completed/finished" {
			t.Errorf("job %s: compensation %q, want completed/finished", n, c)
		}
	}
}

// hyphae flow rerun: --from naming no job is refused saying so; without
// --from the failed job runs again and the finished ones are reused.
func TestFlowRerunCLI(t *testing.T) {
	t.Parallel()
	a := startFlowAgent(t, "a", "")
	a.hy(t, "context", "create", "--id", "1")
	marks := t.TempDir()
	flow := writeFlow(t, fmt.Sprintf(`
name: again
context: 1
env: {MARKS: %[1]s}
jobs:
  fetch: {type: sh, script: 'echo x >> "$MARKS/fetch"; echo "n=42" >> "$HYPHAE_RESULT"'}
  use:   {type: sh, needs: fetch, script: 'test -e "$MARKS/ok" || exit 3; echo "got=$HYPHAE_IN_FETCH_N" >> "$HYPHAE_RESULT"'}
`, marks))
	var f flowOut
	out, _, err := hyTry("flow", "run", flow, "--wait", "--json", "--data-dir", a.dir)
	if exitCode(err) != 1 {
		t.Fatalf("the failing flow: %v, want exit 1", err)
	}
	decode(t, out, &f)
	id, old := strconv.FormatUint(f.ID, 10), f.ID
	_, errOut, err := hyTry("flow", "rerun", id, "--context", "1", "--from", "nope", "--data-dir", a.dir)
	if err == nil || !strings.Contains(errOut, `"nope"`) || !strings.Contains(errOut, "fetch, use") {
		t.Fatalf("rerun --from nope: %v, stderr %q: want a refusal naming it and the jobs", err, errOut)
	}
	if err := os.WriteFile(filepath.Join(marks, "ok"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	decode(t, a.hy(t, "flow", "rerun", id, "--context", "1", "--wait", "--json"), &f)
	if f.Status != "finished" || f.ID == old || f.Result["use.got"] != "42" {
		t.Fatalf("rerun: flow %d %s %v, want a new flow that finished with use.got=42", f.ID, f.Status, f.Result)
	}
	if b, _ := os.ReadFile(filepath.Join(marks, "fetch")); string(b) != "x\n" {
		t.Fatalf("fetch ran %q times over both runs, want once (reused)", b)
	}
}
