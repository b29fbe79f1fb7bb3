package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hyphae-run/hyphae/node"
	"github.com/hyphae-run/hyphae/node/api"
	"github.com/hyphae-run/hyphae/node/api/wire"
	"github.com/hyphae-run/hyphae/testkit/testnet"
)

// outagePair is an origin and a runner agent, each in its own network
// namespace, found by mDNS, the runner's context 3 open to the origin;
// cut and mend take the runner's link down and up.
type outagePair struct {
	lab            *testnet.Lab
	origin, runner string // data dirs
	originID       string
	runnerID       string
	originProc     *proc
	marks          string // where jobs leave a file per run
}

// lostWarning ends the error of a job given up on because its runner
// stayed unreachable.
const lostWarning = ": lost (it may still have run there; a retry may run it twice)"

func newOutagePair(t *testing.T, originConfig string) *outagePair {
	t.Helper()
	o := &outagePair{lab: testnet.NewLab(t, 2), origin: newDataDir(t), runner: newDataDir(t), marks: t.TempDir()}
	o.originID, o.runnerID = peerIDOf(t, o.origin), peerIDOf(t, o.runner)
	args := func(name, config string) []string {
		path := filepath.Join(t.TempDir(), name+".yaml")
		if err := os.WriteFile(path, []byte(hostRemote(config)), 0o600); err != nil {
			t.Fatal(err)
		}
		return []string{"--api", "off", "--listen", "/ip4/0.0.0.0/tcp/4001", "--presence-interval", "500ms", "--config", path}
	}
	o.originProc = startRun(t, o.origin, o.lab.Exec(0), args("origin", originConfig)...)
	startRun(t, o.runner, o.lab.Exec(1), args("runner", "runner:\n  concurrency: 32\n")...)
	eventually(t, 60*time.Second, "the runner seen up by the origin", o.runnerIs(t, "up"))
	hy(t, "context", "create", "--id", "3", "--data-dir", o.runner)
	hy(t, "context", "grant", "3", "--actor", o.originID, "--role", "executor", "--data-dir", o.runner)
	return o
}

func (o *outagePair) runnerIs(t *testing.T, state string) func() bool {
	return func() bool { return peerStates(t, o.origin)[o.runnerID].State == state }
}

func (o *outagePair) cut(t *testing.T) {
	t.Helper()
	if err := o.lab.Cut(1); err != nil {
		t.Fatal(err)
	}
	eventually(t, 60*time.Second, "the runner marked down at the origin", o.runnerIs(t, "down"))
}

func (o *outagePair) mend(t *testing.T) time.Time {
	t.Helper()
	if err := o.lab.Mend(1); err != nil {
		t.Fatal(err)
	}
	return time.Now()
}

// script is a job that leaves a line in the file of run i each time it
// runs (the time it started), then sleeps and returns i=<i>.
func (o *outagePair) script(i int, sleep string) string {
	return fmt.Sprintf(`date +%%s.%%N >> %s/run-%d; sleep %s; echo "i=%d" >> "$HYPHAE_RESULT"`, o.marks, i, sleep, i)
}

// runs are the start times of each run of job i.
func (o *outagePair) runs(t *testing.T, i int) []float64 {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(o.marks, "run-"+strconv.Itoa(i)))
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var out []float64
	for _, f := range strings.Fields(string(b)) {
		v, err := strconv.ParseFloat(f, 64)
		if err != nil {
			t.Fatalf("run file %d: %q", i, f)
		}
		out = append(out, v)
	}
	return out
}

// submit sends a job to the runner and returns its key and the origin's
// context of it.
func (o *outagePair) submit(t *testing.T, script string) (key, ctx string) {
	t.Helper()
	var j wire.JobView
	decode(t, hy(t, "job", "run", "--to", o.runnerID, "--context", "3", "--script", script, "--json", "--data-dir", o.origin), &j)
	return j.Key, strconv.FormatUint(j.ContextID, 10)
}

// jobs is the origin's view of context ctx's jobs, by key.
func (o *outagePair) jobs(t *testing.T, ctx string) map[string]wire.JobView {
	t.Helper()
	out, _, err := hyTry("job", "list", ctx, "--limit", "0", "--json", "--data-dir", o.origin)
	if err != nil {
		return nil
	}
	var js []wire.JobView
	decode(t, out, &js)
	m := map[string]wire.JobView{}
	for _, j := range js {
		m[j.Key] = j
	}
	return m
}

// every reports whether each of keys is in context ctx and passes ok.
func (o *outagePair) every(t *testing.T, ctx string, keys []string, ok func(wire.JobView) bool) func() bool {
	return func() bool {
		js := o.jobs(t, ctx)
		for _, k := range keys {
			if j, found := js[k]; !found || !ok(j) {
				return false
			}
		}
		return true
	}
}

// Jobs running on an agent whose link is cut for longer than runner_grace
// become unknown at their origin — not an error, their status untouched —
// and once the link is back every result is accepted: each job finished
// with its own result, and each ran exactly once.
func TestOutageJobsUnknownThenReconciled(t *testing.T) {
	t.Parallel()
	o := newOutagePair(t, "supervisor:\n  runner_grace: 2s\n  runner_lost_after: 10m\n")
	const n = 12
	keys := make([]string, n)
	var ctx string
	for i := range keys {
		keys[i], ctx = o.submit(t, o.script(i, "3"))
	}
	eventually(t, 60*time.Second, "every job started at the origin", o.every(t, ctx, keys, func(j wire.JobView) bool {
		return j.Status == "started"
	}))
	o.cut(t)
	eventually(t, 60*time.Second, "every job unknown at the origin", o.every(t, ctx, keys, func(j wire.JobView) bool {
		return j.State == "unknown" && j.Status == "started" && j.UnreachableSince > 0
	}))
	if out := hy(t, "job", "status", ctx, keys[0], "--data-dir", o.origin); !strings.Contains(out, ": unknown (started)") ||
		!strings.Contains(out, "unreachable since") {
		t.Errorf("job status of an unknown job:\n%s", out)
	}
	// The jobs end there during the cut: their results must cross it.
	eventually(t, 60*time.Second, "every job finished on the runner", func() bool {
		var js []wire.JobView
		out, _, err := hyTry("job", "list", "3", "--limit", "0", "--json", "--data-dir", o.runner)
		return err == nil && json.Unmarshal([]byte(out), &js) == nil && len(js) == n &&
			!slices.ContainsFunc(js, func(j wire.JobView) bool { return j.Status != "finished" })
	})
	if js := o.jobs(t, ctx); slices.ContainsFunc(keys, func(k string) bool { return js[k].State != "unknown" }) {
		t.Fatal("a job's state changed during the cut")
	}
	o.mend(t)
	eventually(t, 3*time.Minute, "every job finished at the origin with its result", o.every(t, ctx, keys, func(j wire.JobView) bool {
		return j.Status == "finished" && j.State == "finished"
	}))
	js := o.jobs(t, ctx)
	for i, k := range keys {
		if got := js[k].Result["i"]; got != strconv.Itoa(i) {
			t.Errorf("job %s: result i=%q, want %d", k, got, i)
		}
		if runs := o.runs(t, i); len(runs) != 1 {
			t.Errorf("job %d ran %d times, want once", i, len(runs))
		}
	}
}

// Past runner_lost_after a job is given up on — a plain one ends error, a
// flow's with no retries left fails the flow — with an error that says it
// may still have run there. When the link is back, the runner's result is
// kept as late_result; it changes neither the job nor the settled flow.
func TestOutageLostJobKeepsItsLateResult(t *testing.T) {
	t.Parallel()
	o := newOutagePair(t, "supervisor:\n  runner_grace: 1s\n  runner_lost_after: 3s\n")
	hy(t, "context", "create", "--id", "3", "--data-dir", o.origin) // the flow's context here
	key, ctx := o.submit(t, o.script(0, "6"))
	flowFile := filepath.Join(t.TempDir(), "lost.yaml")
	flow := fmt.Sprintf("name: lost\ncontext: 3\njobs:\n  far: {type: sh, runner: %q, script: %q}\n", o.runnerID, o.script(1, "6"))
	if err := os.WriteFile(flowFile, []byte(flow), 0o600); err != nil {
		t.Fatal(err)
	}
	var f flowOut
	decode(t, hy(t, "flow", "run", flowFile, "--json", "--data-dir", o.origin), &f)
	flowID := strconv.FormatUint(f.ID, 10)
	eventually(t, 60*time.Second, "both jobs started there", func() bool {
		return len(o.runs(t, 0)) == 1 && len(o.runs(t, 1)) == 1
	})
	eventually(t, 30*time.Second, "the plain job started at the origin", o.every(t, ctx, []string{key}, func(j wire.JobView) bool {
		return j.Status == "started"
	}))
	o.cut(t)
	eventually(t, 60*time.Second, "the plain job lost", o.every(t, ctx, []string{key}, func(j wire.JobView) bool {
		return j.Status == "error"
	}))
	lost := o.jobs(t, ctx)[key]
	if !strings.HasPrefix(lost.Error, "runner "+o.runnerID+" unreachable for ") || !strings.HasSuffix(lost.Error, lostWarning) {
		t.Fatalf("lost job's error %q, want the runner's warning", lost.Error)
	}
	status := func() flowOut {
		var f flowOut
		decode(t, hy(t, "flow", "status", flowID, "--context", "3", "--json", "--data-dir", o.origin), &f)
		return f
	}
	eventually(t, 60*time.Second, "the flow failed", func() bool { return status().Status == "error" })
	far := status().Jobs[0]
	if !strings.Contains(far.Error, "runner "+o.runnerID+" unreachable for ") || !strings.HasSuffix(far.Error, lostWarning) {
		t.Fatalf("flow job's error %q, want the runner's warning", far.Error)
	}
	o.mend(t)
	eventually(t, 3*time.Minute, "the plain job's late result kept", o.every(t, ctx, []string{key}, func(j wire.JobView) bool {
		return j.LateResult != nil
	}))
	farKey := o.flowJobKey(t, flowID)
	eventually(t, 3*time.Minute, "the flow job's late result kept", o.every(t, "3", []string{farKey}, func(j wire.JobView) bool {
		return j.LateResult != nil
	}))
	for c, k := range map[string]string{ctx: key, "3": farKey} {
		j := o.jobs(t, c)[k]
		if j.Status != "error" || !strings.HasSuffix(j.Error, lostWarning) || j.LateResult.Status != "finished" ||
			j.LateResult.From != o.runnerID || j.LateResult.Result["i"] == "" {
			t.Errorf("job %s after its late result: %s %q, late %+v", k, j.Status, j.Error, j.LateResult)
		}
	}
	if out := hy(t, "job", "status", ctx, key, "--data-dir", o.origin); !strings.Contains(out, "late result: finished from "+o.runnerID) {
		t.Errorf("job status does not show the late result:\n%s", out)
	}
	if f := status(); f.Status != "error" {
		t.Errorf("the late result changed the flow to %s", f.Status)
	}
	for i := range 2 {
		if runs := o.runs(t, i); len(runs) != 1 {
			t.Errorf("job %d ran %d times, want once", i, len(runs))
		}
	}
}

func (o *outagePair) flowJobKey(t *testing.T, flowID string) string {
	t.Helper()
	var v struct {
		Jobs []struct {
			Key string `json:"key"`
		} `json:"jobs"`
	}
	decode(t, hy(t, "flow", "status", flowID, "--context", "3", "--json", "--data-dir", o.origin), &v)
	if len(v.Jobs) != 1 {
		t.Fatalf("flow %s has %d jobs", flowID, len(v.Jobs))
	}
	return v.Jobs[0].Key
}

// Jobs submitted while the runner is cut off wait in the origin's outbox,
// resent with a backoff that grows to 30 s. When the link is mended they
// go at once, because the runner came back: each job's message has its
// backoff started again by the return (backoff_from), the origin logs the
// resend on the runner's return, and every job then runs, once. The time
// from the mend to the first job's start is printed.
func TestOutageBacklogResumesOnReturn(t *testing.T) {
	t.Parallel()
	o := newOutagePair(t, "supervisor:\n  runner_grace: 2s\n  runner_lost_after: 10m\n")
	o.cut(t)
	const n = 5
	keys := make([]string, n)
	var ctx string
	for i := range keys {
		keys[i], ctx = o.submit(t, o.script(i, "0"))
	}
	client := api.NewUnixClient(node.PathsFor(o.origin).Socket)
	// The outage lasts until the backlog's backoff has grown to 24 s
	// (each message sent four times): the next resend is that far off.
	eventually(t, 2*time.Minute, "the backlog resent with a grown backoff", func() bool {
		ms := jobMessages(t, client, ctx, o.runnerID)
		return len(ms) == n && !slices.ContainsFunc(ms, func(m wire.MessageView) bool {
			s, _ := strconv.Atoi(m.Fields["sends"])
			return s < 4
		})
	})
	// A send under way waits up to 5 s for a route (bridge seal): one
	// still waiting would go out at the mend and hide what the return does.
	time.Sleep(6 * time.Second)
	healed := o.mend(t)
	eventually(t, 3*time.Minute, "every backlog job ran", func() bool {
		for i := range n {
			if len(o.runs(t, i)) == 0 {
				return false
			}
		}
		return true
	})
	first := o.runs(t, 0)[0]
	for i := 1; i < n; i++ {
		first = min(first, o.runs(t, i)[0])
	}
	firstAt := time.Unix(0, int64(first*1e9))
	t.Logf("heal → first backlog job started: %v (mended %s, first job %s)", firstAt.Sub(healed).Round(time.Millisecond),
		healed.UTC().Format("15:04:05.000"), firstAt.UTC().Format("15:04:05.000"))
	eventually(t, 2*time.Minute, "every backlog job finished at the origin", o.every(t, ctx, keys, func(j wire.JobView) bool {
		return j.Status == "finished"
	}))
	for _, m := range jobMessages(t, client, ctx, o.runnerID) {
		if m.Fields["backoff_from"] == "" {
			t.Errorf("message %s (sends %s) has no backoff_from: it was not resent because the runner came back", m.Key, m.Fields["sends"])
		}
	}
	for i := range n {
		if runs := o.runs(t, i); len(runs) != 1 {
			t.Errorf("backlog job %d ran %d times, want once", i, len(runs))
		}
	}
	o.originProc.kill() // its log is whole once it has exited
	log := o.originProc.log.String()
	resent := false // on the return after the mend (a connection that lingers may report one during the cut)
	for _, line := range strings.Split(log, "\n") {
		if strings.Contains(line, "peer back") || strings.Contains(line, "overlay: peer") {
			t.Logf("origin: %s", line)
		}
		if strings.Contains(line, "peer back: its messages sent again at once") && strings.Contains(line, "peer="+o.runnerID) {
			at, err := time.Parse(time.RFC3339Nano, strings.TrimPrefix(strings.Fields(line)[0], "time="))
			resent = resent || (err == nil && !at.Before(healed.Truncate(time.Millisecond)))
		}
	}
	if !resent {
		t.Errorf("the origin did not log resending its messages on the runner's return after the mend:\n%s", log)
	}
}

// jobMessages are context ctx's job messages to dst, through the API.
func jobMessages(t *testing.T, c *api.Client, ctx, dst string) []wire.MessageView {
	t.Helper()
	id, _ := strconv.ParseUint(ctx, 10, 64)
	var ms []wire.MessageView
	if err := c.Call(context.Background(), "message.list", map[string]any{"context": id}, &ms); err != nil {
		t.Fatalf("message.list: %v", err)
	}
	var out []wire.MessageView
	for _, m := range ms {
		if m.Type == "job" && m.Fields["dst"] == dst {
			out = append(out, m)
		}
	}
	return out
}
