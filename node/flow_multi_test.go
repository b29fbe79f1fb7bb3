package node_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/node/api/wire"
	"github.com/hyphae-run/hyphae/node/flowtext"
)

// flowPair is two in-process agents that share context 1: a runs flows
// (supervisor and runner), b runs the jobs a sends it (a is an executor
// in b's context 1).
func flowPair(t testing.TB) (a, b *agent) {
	t.Helper()
	a = startAgent(t, agentOpts{})
	b = startAgent(t, agentOpts{bootstrap: []string{a.addr(t)}})
	a.call(t, "context.create", map[string]any{"id": 1}, nil)
	b.call(t, "context.create", map[string]any{"id": 1}, nil)
	b.call(t, "context.grant", map[string]any{"id": 1, "actor": a.peerID(), "role": "executor"}, nil)
	waitPeerUp(t, a, b.peerID())
	return a, b
}

// waitPeerUp waits until a sees peer up.
func waitPeerUp(t testing.TB, a *agent, peer string) {
	t.Helper()
	eventually(t, 30*time.Second, "peer "+peer+" up", func() bool {
		var ps []wire.PeerView
		a.call(t, "peer.list", nil, &ps)
		return slices.ContainsFunc(ps, func(p wire.PeerView) bool { return p.PeerID == peer && p.State == "up" })
	})
}

// runFlow creates and starts a flow from text on a.
func runFlow(t testing.TB, a *agent, text string) *wire.FlowView {
	t.Helper()
	var v wire.FlowView
	a.call(t, "flow.create", wire.FlowCreateParams{FileContent: text, FileName: "test.yaml", Start: true}, &v)
	return &v
}

// waitFlow follows a flow through flow.wait until it ends.
func waitFlow(t testing.TB, a *agent, v *wire.FlowView) *wire.FlowView {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for !v.Terminal() {
		if time.Now().After(deadline) {
			t.Fatalf("flow %d did not end: %s", v.ID, flowtext.Render(&v.FlowState))
		}
		var next wire.FlowView
		a.call(t, "flow.wait", wire.FlowWaitParams{FlowRef: wire.FlowRef{Context: v.ContextID, ID: v.ID},
			Timeout: 2, After: v.Version}, &next)
		v = &next
	}
	return v
}

func jobOf(t *testing.T, v *wire.FlowView, name string) wire.FlowJobState {
	t.Helper()
	for _, j := range v.Jobs {
		if j.Name == name {
			return j
		}
	}
	t.Fatalf("flow %d has no job %q", v.ID, name)
	return wire.FlowJobState{}
}

// A 10-job chain whose jobs alternate between two agents (pinned by peer
// ID): every edge crosses the overlay, and each job adds one to what the
// one before it passed on.
func TestFlowChainAlternatingAgents(t *testing.T) {
	t.Parallel()
	a, b := flowPair(t)
	const n = 10
	var f strings.Builder
	f.WriteString("name: zigzag\ncontext: 1\njobs:\n")
	for i := 0; i < n; i++ {
		on := a
		if i%2 == 1 {
			on = b
		}
		prev := "0"
		needs := ""
		if i > 0 {
			prev = fmt.Sprintf("$HYPHAE_IN_J%d_N", i-1)
			needs = fmt.Sprintf(", needs: j%d", i-1)
		}
		fmt.Fprintf(&f, "  j%d: {type: sh, runner: %s%s, script: 'echo \"n=$((%s + 1))\" >> \"$HYPHAE_RESULT\"; echo \"home=$HOME\" >> \"$HYPHAE_RESULT\"'}\n",
			i, on.peerID(), needs, prev)
	}
	start := time.Now()
	v := waitFlow(t, a, runFlow(t, a, f.String()))
	t.Logf("10-job chain over two agents: %v", time.Since(start).Round(time.Millisecond))
	if v.Status != "finished" {
		t.Fatalf("flow ended %s: %s\n%s", v.Status, v.Error, flowtext.Render(&v.FlowState))
	}
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("j%d", i)
		on := a
		if i%2 == 1 {
			on = b
		}
		j := jobOf(t, v, name)
		if j.State != model.NodeCompleted || j.Runner != on.peerID() || j.Attempt != 1 {
			t.Errorf("job %s: state %s runner %s attempt %d, want completed on %s", name, j.State, j.Runner, j.Attempt, on.peerID())
		}
		if got := v.Result[name+".n"]; got != strconv.Itoa(i+1) {
			t.Errorf("result %s.n = %q, want %d", name, got, i+1)
		}
		if home := v.Result[name+".home"]; !strings.HasPrefix(home, on.dir+string(os.PathSeparator)) {
			t.Errorf("job %s ran in %q, want under %s", name, home, on.dir)
		}
	}
	var jobs []wire.JobView
	b.call(t, "job.list", map[string]any{"context": 1}, &jobs)
	if len(jobs) != n/2 {
		t.Errorf("b ran %d jobs, want %d", len(jobs), n/2)
	}
}

// flow.cancel while a job runs on the other agent: that job is stopped
// there (its process is gone, its job there ends error), and the jobs
// after it are cancelled without ever running.
func TestFlowCancelStopsRemoteJob(t *testing.T) {
	t.Parallel()
	a, b := flowPair(t)
	marks := t.TempDir()
	v := runFlow(t, a, fmt.Sprintf(`
name: stopme
context: 1
env: {MARKS: %s}
jobs:
  long: {type: sh, runner: %s, script: 'echo $$ > "$MARKS/long.pid"; sleep 60; touch "$MARKS/long.end"'}
  next: {type: sh, needs: long, runner: %[2]s, script: 'touch "$MARKS/next"'}
  last: {type: sh, needs: next, script: 'touch "$MARKS/last"'}
`, marks, b.peerID()))
	pidFile := filepath.Join(marks, "long.pid")
	var pid int
	eventually(t, 30*time.Second, "the long job to start on b", func() bool {
		s, err := os.ReadFile(pidFile)
		if err != nil || !strings.HasSuffix(string(s), "\n") {
			return false
		}
		pid, err = strconv.Atoi(strings.TrimSpace(string(s)))
		return err == nil
	})

	a.call(t, "flow.cancel", wire.FlowRef{Context: 1, ID: v.ID}, v)
	v = waitFlow(t, a, v)
	if v.Status != "error" || !strings.Contains(v.Error, "cancel") {
		t.Fatalf("flow after cancel: %s %q", v.Status, v.Error)
	}
	for _, name := range []string{"long", "next", "last"} {
		if j := jobOf(t, v, name); j.State != model.NodeCancelled {
			t.Errorf("job %s: state %s, want cancelled", name, j.State)
		}
	}
	for _, name := range []string{"next", "last"} {
		if j := jobOf(t, v, name); j.Attempt != 0 {
			t.Errorf("job %s was dispatched (attempt %d)", name, j.Attempt)
		}
	}
	// On b the job ends error (stopped) and its shell is gone.
	eventually(t, 30*time.Second, "the job on b to end", func() bool {
		var jobs []wire.JobView
		b.call(t, "job.list", map[string]any{"context": 1}, &jobs)
		if len(jobs) != 1 {
			t.Fatalf("b holds %d jobs, want only long: %+v", len(jobs), jobs)
		}
		return jobs[0].Status == "error"
	})
	eventually(t, 30*time.Second, "the long job's process to be gone", func() bool {
		return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
	})
	for _, f := range []string{"long.end", "next", "last"} {
		if _, err := os.Stat(filepath.Join(marks, f)); err == nil {
			t.Errorf("%s exists: a job ran on after the cancel", f)
		}
	}
}

// flow.cancel while the runner a job was sent to is down, before it
// acknowledged the job: the job message is withdrawn, so the runner,
// once back, never runs the job of the cancelled flow.
func TestFlowCancelWithdrawsUndeliveredJob(t *testing.T) {
	t.Parallel()
	a, b := flowPair(t)
	marks := t.TempDir()
	b.stop(t)
	v := runFlow(t, a, fmt.Sprintf(`
name: withdraw
context: 1
env: {MARKS: %s}
jobs:
  far: {type: sh, runner: %s, script: 'touch "$MARKS/far"'}
`, marks, b.peerID()))
	jobMsg := func() *wire.MessageView {
		var ms []wire.MessageView
		a.call(t, "message.list", map[string]any{"context": 1}, &ms)
		for i := range ms {
			if ms[i].Type == "job" {
				return &ms[i]
			}
		}
		return nil
	}
	eventually(t, 30*time.Second, "the job message to be sent", func() bool {
		m := jobMsg()
		return m != nil && m.Fields["sends"] != "" && m.Fields["sends"] != "0"
	})
	t0 := time.Now()
	a.call(t, "flow.cancel", wire.FlowRef{Context: 1, ID: v.ID}, v)
	v = waitFlow(t, a, v)
	if v.Status != "error" || jobOf(t, v, "far").State != model.NodeCancelled {
		t.Fatalf("flow after cancel: %s", flowtext.Render(&v.FlowState))
	}
	// The next resend finds the job cancelled and withdraws the message;
	// from then on nothing can send it.
	eventually(t, 60*time.Second, "the job message to be withdrawn", func() bool {
		m := jobMsg()
		return m != nil && m.Status == "error" && strings.Contains(m.Fields["error"], "withdrawn")
	})
	t.Logf("job message withdrawn %v after the cancel", time.Since(t0).Round(time.Millisecond))
	var j wire.JobView
	a.call(t, "job.load", map[string]any{"context": 1, "key": jobOf(t, v, "far").Key}, &j)
	if j.Status != "error" {
		t.Errorf("origin job after withdrawal: %s %q", j.Status, j.Error)
	}
	b2 := startAgent(t, agentOpts{redis: b.redis, dir: b.dir, bootstrap: []string{a.addr(t)}})
	// A probe job shows the way to b works again; b holds only that.
	var probe wire.JobView
	a.call(t, "job.run", map[string]any{"to": b2.peerID(), "context": 1, "type": "sh", "script": "echo probe"}, &probe)
	if got := waitJob(t, a, probe.ContextID, probe.Key); got.Status != "finished" {
		t.Fatalf("probe job to b: %+v", got)
	}
	var jobs []wire.JobView
	b2.call(t, "job.list", map[string]any{"context": 1}, &jobs)
	if len(jobs) != 1 {
		t.Errorf("b holds %d jobs, want only the probe: %+v", len(jobs), jobs)
	}
	if _, err := os.Stat(filepath.Join(marks, "far")); err == nil {
		t.Error("the job of the cancelled flow ran")
	}
}
