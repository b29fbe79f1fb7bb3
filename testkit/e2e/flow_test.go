package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hyphae-run/hyphae/testkit/need"
)

// flowOut is what `hyphae flow run|status --json` prints.
type flowOut struct {
	ID       uint64            `json:"id"`
	Status   string            `json:"status"`
	Error    string            `json:"error"`
	Result   map[string]string `json:"result"`
	Jobs     []flowJobOut      `json:"jobs"`
	Progress struct {
		Total     int `json:"total"`
		Completed int `json:"completed"`
	} `json:"progress"`
}

type flowJobOut struct {
	Name    string            `json:"name"`
	State   string            `json:"state"`
	Status  string            `json:"status"`
	Runner  string            `json:"runner"`
	Attempt int64             `json:"attempt"`
	Result  map[string]string `json:"result"`
	Error   string            `json:"error"`
}

func (f *flowOut) job(t *testing.T, name string) flowJobOut {
	t.Helper()
	for _, j := range f.Jobs {
		if j.Name == name {
			return j
		}
	}
	t.Fatalf("flow has no job %q: %+v", name, f.Jobs)
	return flowJobOut{}
}

func (f *flowOut) terminal() bool {
	return f.Status == "finished" || f.Status == "error"
}

// flowAgent is one `hyphae run` of a flow test.
type flowAgent struct {
	name, dir, peer string
	proc            *proc
	args            []string
}

// startFlowAgent starts an agent on a fresh data dir with extra run args
// (and, when config is not empty, a config file with that text).
func startFlowAgent(t testing.TB, name, config string, args ...string) *flowAgent {
	t.Helper()
	dir := newDataDir(t)
	a := &flowAgent{name: name, dir: dir, args: append(append([]string{}, localArgs()...), args...)}
	a.args = append(a.args, "--presence-interval", "300ms")
	config = hostRemote(config) // isolation_test.go
	if config != "" {
		path := filepath.Join(filepath.Dir(dir), name+".yaml")
		if err := os.WriteFile(path, []byte(config), 0o600); err != nil {
			t.Fatal(err)
		}
		a.args = append(a.args, "--config", path)
	}
	a.proc = startRun(t, dir, nil, a.args...)
	var id struct {
		PeerID      string   `json:"peer_id"`
		ListenAddrs []string `json:"listen_addrs"`
	}
	decode(t, hy(t, "id", "--json", "--data-dir", dir), &id)
	a.peer = id.PeerID
	return a
}

// kill9 is proc.kill, leaving the exit in done so that the cleanup's
// kill of the same process returns at once.
func (p *proc) kill9() {
	p.kill()
	select {
	case p.done <- nil:
	default:
	}
}

// restart starts the agent again on the same data dir and arguments.
func (a *flowAgent) restart(t *testing.T) {
	t.Helper()
	a.proc = startRun(t, a.dir, nil, a.args...)
}

// addr is the agent's overlay address with /p2p/.
func (a *flowAgent) addr(t testing.TB) string {
	t.Helper()
	var id struct {
		ListenAddrs []string `json:"listen_addrs"`
	}
	decode(t, hy(t, "id", "--json", "--data-dir", a.dir), &id)
	for _, ad := range id.ListenAddrs {
		if strings.Contains(ad, "/tcp/") && strings.Contains(ad, "/p2p/") {
			return ad
		}
	}
	if len(id.ListenAddrs) == 0 {
		t.Fatalf("%s has no listen address", a.name)
	}
	return id.ListenAddrs[0]
}

func (a *flowAgent) hy(t testing.TB, args ...string) string {
	t.Helper()
	return hy(t, append(args, "--data-dir", a.dir)...)
}

// waitPeerUp waits until a sees peer up and announcing script type typ.
func (a *flowAgent) waitPeerUp(t testing.TB, peer, typ string) {
	t.Helper()
	eventually(t, 30*time.Second, a.name+" seeing "+peer+" up with type "+typ, func() bool {
		out, _, err := hyTry("peers", "--json", "--data-dir", a.dir)
		if err != nil {
			return false
		}
		var ps []struct {
			PeerID      string   `json:"peer_id"`
			State       string   `json:"state"`
			ScriptTypes []string `json:"script_types"`
		}
		decode(t, out, &ps)
		for _, p := range ps {
			if p.PeerID == peer && p.State == "up" && slices.Contains(p.ScriptTypes, typ) {
				return true
			}
		}
		return false
	})
}

// jobsIn lists the jobs of a context on agent a.
func (a *flowAgent) jobsIn(t *testing.T, ctx string) []jobListOut {
	t.Helper()
	var js []jobListOut
	decode(t, a.hy(t, "job", "list", ctx, "--json", "--limit", "0"), &js)
	return js
}

type jobListOut struct {
	Key    string            `json:"key"`
	Name   string            `json:"name"`
	Status string            `json:"status"`
	Runner string            `json:"runner"`
	Result map[string]string `json:"result"`
}

func writeFlow(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "flow.yaml")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// A flow spread over three agents: the supervisor S runs what it serves
// itself, a job pinned by peer ID runs on R1, a job of a type only R2
// serves goes to R2, and results travel between them as HYPHAE_IN_* vars.
// Each job reports $HOME — its job directory, under the data dir of the
// agent that ran it — so the test sees where each one really ran.
func TestFlowAcrossThreeAgents(t *testing.T) {
	t.Parallel()
	s := startFlowAgent(t, "s", "")
	r1 := startFlowAgent(t, "r1", "", "--bootstrap", s.addr(t))
	r2 := startFlowAgent(t, "r2", "executors: {special: [sh, \"{file}\"]}\n", "--bootstrap", s.addr(t))
	s.hy(t, "context", "create", "--id", "1")
	for _, r := range []*flowAgent{r1, r2} {
		r.hy(t, "context", "create", "--id", "1")
		r.hy(t, "context", "grant", "1", "--actor", s.peer, "--role", "executor")
	}
	s.waitPeerUp(t, r1.peer, "sh")
	s.waitPeerUp(t, r2.peer, "special")
	// typed names no runner: the supervisor places it, on a registered runner only.
	s.hy(t, "runner", "create", "1", "--peer", r2.peer, "--type", "special")

	flow := writeFlow(t, fmt.Sprintf(`
name: spread
context: 1
env: {GREETING: hi}
jobs:
  prep:
    type: sh
    script: |
      echo "home=$HOME" >> "$HYPHAE_RESULT"
      echo "seed=7" >> "$HYPHAE_RESULT"
  pinned:
    type: sh
    needs: prep
    runner: %[1]s
    script: |
      echo "home=$HOME" >> "$HYPHAE_RESULT"
      echo "doubled=$((HYPHAE_IN_PREP_SEED * 2))" >> "$HYPHAE_RESULT"
      echo "greeting=$GREETING" >> "$HYPHAE_RESULT"
  typed:
    type: special
    needs: prep
    script: |
      echo "home=$HOME" >> "$HYPHAE_RESULT"
      echo "tripled=$((HYPHAE_IN_PREP_SEED * 3))" >> "$HYPHAE_RESULT"
  join:
    type: sh
    needs: [pinned, typed]
    runner: %[2]s
    script: |
      echo "home=$HOME" >> "$HYPHAE_RESULT"
      echo "sum=$((HYPHAE_IN_PINNED_DOUBLED + HYPHAE_IN_TYPED_TRIPLED))" >> "$HYPHAE_RESULT"
`, r1.peer, s.peer))

	start := time.Now()
	var f flowOut
	decode(t, s.hy(t, "flow", "run", flow, "--wait", "--json"), &f)
	t.Logf("flow over three agents: %v", time.Since(start).Round(time.Millisecond))
	if f.Status != "finished" || f.Error != "" {
		t.Fatalf("flow ended %s: %s\n%+v", f.Status, f.Error, f.Jobs)
	}
	want := map[string]string{"prep.seed": "7", "pinned.doubled": "14", "pinned.greeting": "hi",
		"typed.tripled": "21", "join.sum": "35"}
	for k, v := range want {
		if f.Result[k] != v {
			t.Errorf("result[%s] = %q, want %q (result %v)", k, f.Result[k], v, f.Result)
		}
	}
	if f.Progress.Total != 4 || f.Progress.Completed != 4 {
		t.Errorf("progress %+v, want 4 of 4 completed", f.Progress)
	}
	// Where each job ran: its runner, and the job directory it saw.
	where := map[string]*flowAgent{"prep": s, "pinned": r1, "typed": r2, "join": s}
	for name, a := range where {
		j := f.job(t, name)
		if j.State != "completed" || j.Attempt != 1 {
			t.Errorf("job %s: state %s attempt %d", name, j.State, j.Attempt)
		}
		if j.Runner != a.peer {
			t.Errorf("job %s: runner %s, want %s (%s)", name, j.Runner, a.peer, a.name)
		}
		if home := f.Result[name+".home"]; !strings.HasPrefix(home, a.dir+string(os.PathSeparator)) {
			t.Errorf("job %s ran in %q, want under %s's data dir %s", name, home, a.name, a.dir)
		}
	}
	// Each runner holds exactly the job sent to it, finished.
	for a, name := range map[*flowAgent]string{r1: "pinned", r2: "typed"} {
		js := a.jobsIn(t, "1")
		if len(js) != 1 || js[0].Name != name || js[0].Status != "finished" {
			t.Errorf("%s's context 1 jobs = %+v, want just %s finished", a.name, js, name)
		}
	}
}

// A real kill -9 of a supervisor-only agent mid-flow, then a restart on
// the same data dir: the flow resumes from its Redis (AOF in the data
// dir), takes the result of the job that ended while it was down (R1
// resends it), dispatches the rest, and every job runs exactly once. The jobs run on R1, a
// runner-only agent, so a job in flight survives the supervisor's death.
func TestFlowSupervisorKill9MidFlowResumes(t *testing.T) {
	t.Parallel()
	need.Tool(t, "redis-server", "redis-server")
	// R1 resends unacknowledged results quickly, so the one that finds the
	// supervisor down gets through soon after the restart.
	r1 := startFlowAgent(t, "r1", "bus: {timeout_ack: 300ms}\n", "--roles", "runner")
	s := startFlowAgent(t, "s", "bus: {timeout_ack: 300ms}\n", "--roles", "supervisor", "--bootstrap", r1.addr(t))
	s.hy(t, "context", "create", "--id", "1")
	r1.hy(t, "context", "create", "--id", "1")
	r1.hy(t, "context", "grant", "1", "--actor", s.peer, "--role", "executor")
	s.hy(t, "runner", "create", "1", "--peer", r1.peer) // jobs by type go to registered runners only
	s.waitPeerUp(t, r1.peer, "sh")

	marks := t.TempDir()
	// Each job appends "start" and "end" to marks/<name>, around a 1 s
	// sleep; a diamond a → b,c → d → e → f passing values down. Some are
	// pinned to R1 by peer ID, the others go by type (only R1 runs sh).
	step := func(name, value string) string {
		return fmt.Sprintf(`script: 'echo start >> "$MARKS/%[1]s"; sleep 1; echo "v=%[2]s" >> "$HYPHAE_RESULT"; echo end >> "$MARKS/%[1]s"'`, name, value)
	}
	flow := writeFlow(t, fmt.Sprintf(`
name: survive
context: 1
env: {MARKS: %s}
jobs:
  a: {type: sh, runner: %s, %s}
  b: {type: sh, needs: a, %s}
  c: {type: sh, needs: a, runner: %s, %s}
  d: {type: sh, needs: [b, c], %s}
  e: {type: sh, needs: d, %s}
  f: {type: sh, needs: e, %s}
`, marks, r1.peer, step("a", "1"), step("b", "$((HYPHAE_IN_A_V + 1))"),
		r1.peer, step("c", "$((HYPHAE_IN_A_V + 2))"), step("d", "$((HYPHAE_IN_B_V + HYPHAE_IN_C_V))"),
		step("e", "$((HYPHAE_IN_D_V * 2))"), step("f", "$((HYPHAE_IN_E_V + 1))")))
	names := []string{"a", "b", "c", "d", "e", "f"}
	count := func(name, what string) int {
		b, _ := os.ReadFile(filepath.Join(marks, name))
		return strings.Count(string(b), what+"\n")
	}
	ended := func() int {
		n := 0
		for _, name := range names {
			n += count(name, "end")
		}
		return n
	}
	started := func() int {
		n := 0
		for _, name := range names {
			n += count(name, "start")
		}
		return n
	}

	start := time.Now()
	var f flowOut
	decode(t, s.hy(t, "flow", "run", flow, "--json"), &f)
	// Kill the supervisor once two jobs have ended and another runs on R1.
	// (Starts are read before ends: a job counted as started and not as
	// ended was still running when the ends were read.)
	eventually(t, 30*time.Second, "two jobs ended and one running", func() bool {
		st := started()
		e := ended()
		return e >= 2 && st > e
	})
	s.proc.kill9()
	inFlight := started() - ended()
	t.Logf("killed the supervisor after %v: %d jobs ended, %d running", time.Since(start).Round(time.Millisecond), ended(), inFlight)
	// The running job ends while the supervisor is down: its result waits
	// in R1's outbox.
	eventually(t, 30*time.Second, "the running job to end with the supervisor down", func() bool {
		return started() == ended()
	})
	s.restart(t)
	t.Logf("supervisor back after %v", time.Since(start).Round(time.Millisecond))
	t.Cleanup(func() {
		if t.Failed() {
			out, errOut, _ := hyTry("flow", "status", fmt.Sprint(f.ID), "--context", "1", "--json", "--data-dir", s.dir)
			jobs, _, _ := hyTry("job", "list", "1", "--json", "--data-dir", r1.dir)
			t.Logf("flow: %s %s\nR1 jobs: %s\nS log:\n%s\nR1 log:\n%s", out, errOut, jobs, s.proc.log, r1.proc.log)
		}
	})

	id := fmt.Sprint(f.ID)
	eventually(t, 60*time.Second, "the flow to end after the restart", func() bool {
		out, _, err := hyTry("flow", "status", id, "--context", "1", "--json", "--data-dir", s.dir)
		if err != nil {
			return false
		}
		var cur flowOut
		decode(t, out, &cur)
		f = cur
		return f.terminal()
	})
	t.Logf("flow ended %s after %v", f.Status, time.Since(start).Round(time.Millisecond))
	if f.Status != "finished" {
		t.Fatalf("flow ended %s: %s\n%+v", f.Status, f.Error, f.Jobs)
	}
	if f.Progress.Total != len(names) || f.Progress.Completed != len(names) {
		t.Errorf("progress %+v, want all %d jobs completed", f.Progress, len(names))
	}
	for _, name := range names {
		if s, e := count(name, "start"), count(name, "end"); s != 1 || e != 1 {
			t.Errorf("job %s: %d starts, %d ends, want exactly one run", name, s, e)
		}
		if j := f.job(t, name); j.State != "completed" || j.Attempt != 1 || j.Runner != r1.peer {
			t.Errorf("job %s: state %s attempt %d runner %s", name, j.State, j.Attempt, j.Runner)
		}
	}
	want := map[string]string{"a.v": "1", "b.v": "2", "c.v": "3", "d.v": "5", "e.v": "10", "f.v": "11"}
	for k, v := range want {
		if f.Result[k] != v {
			t.Errorf("result[%s] = %q, want %q (result %v)", k, f.Result[k], v, f.Result)
		}
	}
	if js := r1.jobsIn(t, "1"); len(js) != len(names) {
		t.Errorf("R1 holds %d jobs, want %d (one per flow job): %+v", len(js), len(names), js)
	}
}
