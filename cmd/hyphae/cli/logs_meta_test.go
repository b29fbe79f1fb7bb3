package cli

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"

	"github.com/hyphae-run/hyphae/cmd/hyphae/agent"
	"github.com/hyphae-run/hyphae/node/api"
	"github.com/hyphae-run/hyphae/node/api/wire"
)

// logsParams are job.logs's parameters as an agent with meta takes them.
type logsParams struct {
	Context uint64 `json:"context"`
	Key     string `json:"key"`
	From    int64  `json:"from"`
	Meta    bool   `json:"meta"`
}

// oldLogsParams are an older agent's: it refuses meta as unknown.
type oldLogsParams struct {
	Context uint64 `json:"context"`
	Key     string `json:"key"`
	From    int64  `json:"from"`
}

var fakeLog = []wire.LogEntry{{Stream: "stdout", Line: "out-1"}, {Stream: "stderr", Line: "err-1"}}

// fakeLogsAgent serves job.logs with fakeLog from a socket, with entries
// (meta) or, old, without the parameter at all.
func fakeLogsAgent(t *testing.T, old bool) *globals {
	t.Helper()
	table := api.NewTable()
	lines := []string{fakeLog[0].Line, fakeLog[1].Line}
	if old {
		api.Register(table, "job.logs", "", func(_ context.Context, p oldLogsParams) (*wire.LogsView, error) {
			return &wire.LogsView{Lines: lines[p.From:], Next: 2, Status: "finished"}, nil
		})
	} else {
		api.Register(table, "job.logs", "", func(_ context.Context, p logsParams) (*wire.LogsView, error) {
			v := &wire.LogsView{Lines: lines[p.From:], Next: 2, Status: "finished"}
			if p.Meta {
				v.Entries = fakeLog[p.From:]
			}
			return v, nil
		})
	}
	srv := api.NewServer(table, "", nil, nil)
	sock := filepath.Join(t.TempDir(), "h.sock")
	if err := srv.ListenUnix(sock); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Shutdown(context.Background()) })
	return &globals{agent: agent.New(), dataDir: t.TempDir(), remote: remote{addr: "unix://" + sock}}
}

// job run --wait and flow watch mark the lines a job wrote on stderr
// "E| ", as job logs does; an agent without job.logs meta gets its lines
// shown plain rather than none.
func TestWaitAndFlowProgressMarkStderr(t *testing.T) {
	for _, c := range []struct {
		name       string
		old        bool
		wait, flow string
	}{
		{"meta", false, "  | out-1\n  | E| err-1\n", "  build | out-1\n  build | E| err-1\n"},
		{"old agent", true, "  | out-1\n  | err-1\n", "  build | out-1\n  build | err-1\n"},
	} {
		g := fakeLogsAgent(t, c.old)
		var w bytes.Buffer
		newWaitProgress(g, &w, 1, "job:1:7").logLines(t.Context())
		if w.String() != c.wait {
			t.Errorf("%s: job run --wait showed\n%q\nwant\n%q", c.name, w.String(), c.wait)
		}
		w.Reset()
		newFlowLogs(g, &w).lines(t.Context(), 1, "build", "job:1:7")
		if w.String() != c.flow {
			t.Errorf("%s: flow watch showed\n%q\nwant\n%q", c.name, w.String(), c.flow)
		}
	}
}

// job logs asks for streams too, and an agent older than meta still gets
// its lines read, shown plain, instead of an "unknown field" error.
func TestJobLogsReadsAnOlderAgent(t *testing.T) {
	for _, c := range []struct {
		name string
		old  bool
		want string
	}{
		{"meta", false, "out-1\nE| err-1\n"},
		{"old agent", true, "out-1\nerr-1\n"},
	} {
		var out, errw bytes.Buffer
		f := &logFollower{g: fakeLogsAgent(t, c.old), ctxID: 1, key: "job:1:7", out: &out, errw: &errw}
		if err := f.run(t.Context(), false); err != nil {
			t.Fatalf("%s: job logs: %v", c.name, err)
		}
		if out.String() != c.want {
			t.Errorf("%s: job logs showed\n%q\nwant\n%q", c.name, out.String(), c.want)
		}
	}
}
