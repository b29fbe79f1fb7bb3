package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/hyphae-run/hyphae/node/api"
	"github.com/hyphae-run/hyphae/node/api/wire"
)

// pagedAgent serves job.page over n jobs of context 1 (job:1:n first,
// newest), filtering on flow, name and type as the agent does, and
// records the params it was asked.
func pagedAgent(t *testing.T, n int) (string, *[]wire.JobPageParams) {
	t.Helper()
	var asked []wire.JobPageParams
	addr := fakeAPI(t, func(table *api.Table) {
		api.Register(table, "job.page", "", func(_ context.Context, p wire.JobPageParams) (*wire.JobPage, error) {
			asked = append(asked, p)
			var match []*wire.JobView
			for id := n; id > 0; id-- {
				j := &wire.JobView{Key: fmt.Sprintf("job:1:%d", id), ID: uint64(id), ContextID: 1, Type: "sh", Status: "finished",
					Name: fmt.Sprintf("backup-%d", id), FlowID: uint64(id % 2)}
				if (p.Flow == 0 || j.FlowID == p.Flow) && strings.Contains(j.Name, p.Name) && (p.Type == "" || j.Type == p.Type) {
					match = append(match, j)
				}
			}
			page := &wire.JobPage{Total: len(match), Offset: p.Offset, Limit: p.Limit, Jobs: []*wire.JobView{}}
			page.Jobs = append(page.Jobs, match[min(p.Offset, len(match)):min(p.Offset+p.Limit, len(match))]...)
			return page, nil
		})
	})
	return addr, &asked
}

// job list --flow, --name and --type filter as the dashboard does (the
// agent's job.page), with --status; --limit 0 reads every page.
func TestJobListFilters(t *testing.T) {
	addr, asked := pagedAgent(t, 1200)
	code, out, stderr := runAt(t, addr, "job", "list", "-c", "1", "--flow", "1", "--name", "backup-1", "--type", "sh", "--status", "finished")
	if code != ExitOK || !strings.HasPrefix(out, "KEY ") || !strings.Contains(out, "\njob:1:1199 ") || strings.Contains(out, "job:1:1198 ") {
		t.Fatalf("job list with filters: exit %d (%s):\n%s", code, stderr, out)
	}
	want := wire.JobPageParams{Context: 1, Status: "finished", Type: "sh", Flow: 1, Name: "backup-1", Limit: wire.MaxJobPage}
	if len(*asked) != 1 || (*asked)[0] != want {
		t.Fatalf("job.page asked %+v, want %+v", *asked, want)
	}
	if !strings.Contains(stderr, "showing the newest 50; --limit 0 shows all") {
		t.Fatalf("job list with more than --limit matching: stderr %q", stderr)
	}
	*asked = nil
	code, out, _ = runAt(t, addr, "job", "list", "-c", "1", "--flow", "1", "--limit", "0", "--json")
	var js []wire.JobView
	if err := json.Unmarshal([]byte(out), &js); code != ExitOK || err != nil || len(js) != 600 || len(*asked) != 2 {
		t.Fatalf("job list --flow 1 --limit 0 --json: exit %d, %d jobs (%v) in %d pages; want 600 in 2", code, len(js), err, len(*asked))
	}
	code, out, stderr = runAt(t, addr, "job", "list", "-c", "1", "--name", "nothing-like-it")
	if code != ExitOK || out != "" || stderr != "no jobs in context 1 with name or key holding \"nothing-like-it\"\n" {
		t.Fatalf("job list matching none: exit %d, stdout %q, stderr %q", code, out, stderr)
	}
}
