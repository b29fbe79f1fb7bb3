package node_test

import (
	"fmt"
	"testing"

	"github.com/hyphae-run/hyphae/node/api/wire"
)

func TestJobPageFiltersAndPagesOnTheAgent(t *testing.T) {
	t.Parallel()
	a := startAgent(t, agentOpts{roles: []string{"supervisor"}})
	a.call(t, "context.create", map[string]any{"id": 1}, nil)
	var keys []string // in creation order
	for i := range 7 {
		typ := map[bool]string{true: "sh", false: "python"}[i%2 == 0]
		var j wire.JobView
		a.call(t, "job.create", map[string]any{"context": 1, "type": typ, "script": "true", "name": fmt.Sprintf("n%d", i)}, &j)
		keys = append(keys, j.Key)
	}
	var p wire.JobPage
	a.call(t, "job.page", map[string]any{"context": 1, "limit": 3}, &p)
	if p.Total != 7 || len(p.Jobs) != 3 || p.Jobs[0].Key != keys[6] || p.Jobs[2].Key != keys[4] {
		t.Fatalf("first page: total %d, %d jobs, first %s; want 7, 3, newest %s", p.Total, len(p.Jobs), p.Jobs[0].Key, keys[6])
	}
	a.call(t, "job.page", map[string]any{"context": 1, "limit": 3, "offset": 6}, &p)
	if len(p.Jobs) != 1 || p.Jobs[0].Key != keys[0] {
		t.Fatalf("last page: %d jobs, want the oldest %s", len(p.Jobs), keys[0])
	}
	a.call(t, "job.page", map[string]any{"context": 1, "type": "sh"}, &p)
	if p.Total != 4 || len(p.Jobs) != 4 || p.Limit != wire.DefaultJobPage {
		t.Fatalf("type sh: total %d, %d jobs, limit %d; want 4, 4, %d", p.Total, len(p.Jobs), p.Limit, wire.DefaultJobPage)
	}
	a.call(t, "job.page", map[string]any{"context": 1, "name": "n5"}, &p)
	if p.Total != 1 || p.Jobs[0].Name != "n5" {
		t.Fatalf("name n5: %+v", p)
	}
	sum := 0
	for _, n := range p.Counts {
		sum += n
	}
	if sum != 1 {
		t.Fatalf("counts %v follow the filters but status: want 1 job in all", p.Counts)
	}
	for _, bad := range []map[string]any{{"context": 1, "status": "nope"}, {"context": 1, "limit": wire.MaxJobPage + 1},
		{"context": 1, "offset": -1}, {"context": 99}} {
		if err := a.client.Call(t.Context(), "job.page", bad, &p); err == nil {
			t.Errorf("job.page %v: no error", bad)
		}
	}
}
