package cli

import (
	"context"
	"strings"
	"testing"

	"github.com/hyphae-run/hyphae/cmd/hyphae/agent"
	"github.com/hyphae-run/hyphae/node/api"
	"github.com/hyphae-run/hyphae/node/api/wire"
)

// The "follow:" line job run and job retry print is today's grammar
// (job logs -f -c N KEY) and works when pasted: it reaches the same agent
// and follows that job.
func TestFollowHintWorksWhenPasted(t *testing.T) {
	t.Setenv(envAddr, "")
	t.Setenv(envContext, "")
	var followed []logsParams
	addr := fakeAPI(t, func(table *api.Table) {
		api.Register(table, "job.run", "", func(_ context.Context, p wire.JobRunParams) (*wire.JobView, error) {
			return &wire.JobView{Key: "job:1:3", ID: 3, ContextID: p.Context, Status: "dispatched", Type: "sh"}, nil
		})
		api.Register(table, "job.retry", "", func(_ context.Context, p wire.JobRef) (*wire.JobView, error) {
			return &wire.JobView{Key: p.Key, ContextID: p.Context, Status: "dispatched", Type: "sh", Attempt: 2}, nil
		})
		api.Register(table, "job.logs", "", func(_ context.Context, p logsParams) (*wire.LogsView, error) {
			followed = append(followed, p)
			return &wire.LogsView{Lines: []string{"hello"}, Entries: []wire.LogEntry{{Line: "hello"}}, Next: 1, Status: "finished"}, nil
		})
	})
	for _, argv := range [][]string{{"job", "run", "-c", "2", "--script", "echo hello"}, {"job", "retry", "-c", "2", "job:1:3"}} {
		followed = nil
		code, out, stderr := runAt(t, addr, argv...)
		if code != ExitOK {
			t.Fatalf("hyphae %s: exit %d: %s", strings.Join(argv, " "), code, stderr)
		}
		_, hint, ok := strings.Cut(out, "  follow: ")
		hint = strings.TrimSpace(hint)
		want := "hyphae job logs -f -c 2 job:1:3 --addr " + addr
		if !ok || hint != want {
			t.Fatalf("hyphae %s printed follow %q, want %q:\n%s", strings.Join(argv, " "), hint, want, out)
		}
		code, out, stderr = runCLI(t, strings.Fields(hint)[1:]...)
		if code != ExitOK || out != "hello\n" || len(followed) == 0 || followed[0].Context != 2 || followed[0].Key != "job:1:3" {
			t.Fatalf("pasted %q: exit %d, stdout %q, stderr %q, asked %+v", hint, code, out, stderr, followed)
		}
	}
}

// A pasted line names the agent as this command reached it: --data-dir
// unless it is the default (or $HYPHAE_DATA_DIR), quoted for the shell.
func TestPasteableNamesTheAgent(t *testing.T) {
	t.Setenv(envAddr, "")
	t.Setenv("HYPHAE_DATA_DIR", "/srv/hy")
	for dir, want := range map[string]string{
		"/srv/hy":     "hyphae job logs -f -c 1 job:1:2",
		"/tmp/a":      "hyphae job logs -f -c 1 job:1:2 --data-dir /tmp/a",
		"/tmp/it's a": `hyphae job logs -f -c 1 job:1:2 --data-dir '/tmp/it'\''s a'`,
	} {
		if got := followHint(&globals{agent: agent.New(), dataDir: dir}, 1, "job:1:2"); got != want {
			t.Errorf("data dir %s: %q, want %q", dir, got, want)
		}
	}
}
