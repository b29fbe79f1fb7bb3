package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hyphae-run/hyphae/cmd/hyphae/agent"
	"github.com/hyphae-run/hyphae/node/api"
	"github.com/hyphae-run/hyphae/node/api/wire"
)

// fakeAgent serves job.load from a socket with job j, as an agent would.
func fakeAgent(t *testing.T, j wire.JobView) string {
	t.Helper()
	table := api.NewTable()
	api.Register(table, "job.load", "", func(context.Context, wire.JobRef) (*wire.JobView, error) { return &j, nil })
	srv := api.NewServer(table, "", nil, nil)
	sock := filepath.Join(t.TempDir(), "h.sock")
	if err := srv.ListenUnix(sock); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Shutdown(context.Background()) })
	return "unix://" + sock
}

// hyphae job status shows the job's trace id, the one its log lines carry
// on every agent, in text and in --json.
func TestJobStatusShowsTraceID(t *testing.T) {
	const tp = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	addr := fakeAgent(t, wire.JobView{Key: "job:1:7", ID: 7, CallerID: 1, ContextID: 1, Type: "sh",
		Status: "finished", State: "finished", Attempt: 1, TraceID: tp})
	var out, errOut bytes.Buffer
	g := &globals{agent: agent.New(), stdout: &out, stderr: &errOut}
	if code := mainWith(context.Background(), g, []string{"job", "status", "-c", "1", "job:1:7", "--addr", addr}); code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	if !strings.Contains(out.String(), "trace id: "+tp) {
		t.Fatalf("job status lacks the trace id:\n%s", out.String())
	}
	out.Reset()
	if code := mainWith(context.Background(), g, []string{"job", "status", "-c", "1", "job:1:7", "--json", "--addr", addr}); code != ExitOK {
		t.Fatalf("--json: exit %d: %s", code, errOut.String())
	}
	var got map[string]any
	if err := json.Unmarshal(out.Bytes(), &got); err != nil || got["trace_id"] != tp {
		t.Fatalf("--json trace_id = %v (%v):\n%s", got["trace_id"], err, out.String())
	}
}

// job run joins the trace of the process that runs it (TRACEPARENT); a
// malformed value is ignored rather than failing the submission.
func TestJobRunTakesTraceparentFromTheEnvironment(t *testing.T) {
	const tp = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	for env, want := range map[string]string{tp: tp, "garbage": "", "": ""} {
		t.Setenv("TRACEPARENT", env)
		p, err := (&jobRunFlags{ctx: 1, typ: "sh", script: "true"}).params()
		if err != nil || p.Traceparent != want {
			t.Errorf("TRACEPARENT=%q: traceparent %q (%v), want %q", env, p.Traceparent, err, want)
		}
	}
}
