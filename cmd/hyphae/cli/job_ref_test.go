package cli

import (
	"context"
	"strings"
	"testing"

	"github.com/hyphae-run/hyphae/node/api"
	"github.com/hyphae-run/hyphae/node/api/wire"
)

// numberedAgent is an agent with contexts: context 1 holds job:1:10 (and
// job:1:100, whose key also holds ":10"), context 2 holds job:1:5 and
// job:4:5, sent there by another actor. It serves what the job commands
// call, and records the keys they ask for.
func numberedAgent(t *testing.T, contexts ...uint64) (string, *[]wire.JobRef) {
	t.Helper()
	jobs := map[uint64][]*wire.JobView{
		1: {{Key: "job:1:100", ID: 100, CallerID: 1, ContextID: 1}, {Key: "job:1:10", ID: 10, CallerID: 1, ContextID: 1}},
		2: {{Key: "job:1:5", ID: 5, CallerID: 1, ContextID: 2}, {Key: "job:4:5", ID: 5, CallerID: 4, ContextID: 2}},
	}
	var asked []wire.JobRef
	addr := fakeAPI(t, func(table *api.Table) {
		api.Register(table, "context.list", "", func(context.Context, struct{}) ([]wire.ContextView, error) {
			var cs []wire.ContextView
			for _, id := range contexts {
				cs = append(cs, wire.ContextView{ID: id})
			}
			return cs, nil
		})
		api.Register(table, "job.page", "", func(_ context.Context, p wire.JobPageParams) (*wire.JobPage, error) {
			page := &wire.JobPage{Jobs: []*wire.JobView{}}
			for _, j := range jobs[p.Context] {
				if strings.Contains(j.Key, p.Name) {
					page.Jobs = append(page.Jobs, j)
				}
			}
			page.Total = len(page.Jobs)
			return page, nil
		})
		load := func(_ context.Context, p wire.JobRef) (*wire.JobView, error) {
			asked = append(asked, p)
			return &wire.JobView{Key: p.Key, ContextID: p.Context, Status: "error", Type: "sh"}, nil
		}
		api.Register(table, "job.load", "", load)
		api.Register(table, "job.retry", "", load)
		api.Register(table, "job.stop", "", func(_ context.Context, p wire.JobRef) (map[string]string, error) {
			asked = append(asked, p)
			return map[string]string{}, nil
		})
		api.Register(table, "job.logs", "", func(_ context.Context, p logsParams) (*wire.LogsView, error) {
			asked = append(asked, wire.JobRef{Context: p.Context, Key: p.Key})
			return &wire.LogsView{Status: "finished"}, nil
		})
	})
	return addr, &asked
}

// Every job command that takes a key takes the job's number too, in the
// context -c, $HYPHAE_CONTEXT or the positional CONTEXT names, or the
// agent's only context.
func TestJobNamedByItsNumber(t *testing.T) {
	addr, asked := numberedAgent(t, 1)
	t.Setenv(envContext, "")
	for _, verb := range []string{"status", "logs", "stop", "retry"} {
		*asked = nil
		for _, args := range [][]string{{verb, "10", "-c", "1"}, {verb, "1", "10"}, {verb, "10"}, {verb, "-c", "1", "job:1:10"}} {
			if code, _, stderr := runAt(t, addr, append([]string{"job"}, args...)...); code != ExitOK {
				t.Fatalf("hyphae job %s: exit %d: %s", strings.Join(args, " "), code, stderr)
			}
		}
		t.Setenv(envContext, "1")
		if code, _, stderr := runAt(t, addr, "job", verb, "10"); code != ExitOK {
			t.Fatalf("%s=1 hyphae job %s 10: exit %d: %s", envContext, verb, code, stderr)
		}
		t.Setenv(envContext, "")
		want := wire.JobRef{Context: 1, Key: "job:1:10"}
		if len(*asked) < 5 {
			t.Fatalf("job %s asked for %+v, want job:1:10 five times", verb, *asked)
		}
		for _, got := range *asked {
			if got != want {
				t.Fatalf("job %s asked for %+v, want %+v each time", verb, *asked, want)
			}
		}
	}
}

// A number that names no job, or two, or no context when the agent has
// several, is refused, saying what to give instead.
func TestJobNumberRefusedWhenAmbiguous(t *testing.T) {
	addr, asked := numberedAgent(t, 1, 2)
	t.Setenv(envContext, "")
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"job", "status", "10"}, ExitUsage, "job 10: which context? this agent has 1, 2: give -c N (or set $HYPHAE_CONTEXT), as in `hyphae job status -c 1 10`"},
		{[]string{"job", "logs", "5", "-c", "2"}, ExitUsage, "job 5 is ambiguous in context 2: job:1:5, job:4:5; give the key"},
		{[]string{"job", "stop", "7", "-c", "1"}, ExitFailed, "job 7 not found in context 1 (hyphae job list -c 1 lists them)"},
		{[]string{"job", "status", "job:1:10"}, ExitUsage, "no context: give --context N"}, // a key does not say its context
	} {
		code, _, stderr := runAt(t, addr, c.args...)
		if code != c.code || !strings.Contains(stderr, c.want) {
			t.Errorf("hyphae %s: exit %d, %q; want %d and %q", strings.Join(c.args, " "), code, stderr, c.code, c.want)
		}
	}
	if len(*asked) != 0 {
		t.Fatalf("refused commands still asked for %+v", *asked)
	}
}
