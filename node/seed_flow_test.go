package node_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hyphae-run/hyphae/node/api"
)

type seedDAG struct {
	Nodes map[string]struct {
		ID         uint32   `json:"id"`
		Depends    []uint32 `json:"depends"`
		NodeStatus string   `json:"node_status"`
	} `json:"nodes"`
	Edges  []struct{ From, To uint32 } `json:"edges"`
	Roots  []uint32                    `json:"roots"`
	Leaves []uint32                    `json:"leaves"`
	Levels [][]uint32                  `json:"levels"`
}

func (d *seedDAG) states() []string {
	var out []string
	for _, n := range d.Nodes {
		out = append(out, n.NodeStatus)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// A flow made the seed way — job.create with dependends, flow.create with
// jobs, flow.start — runs as a DAG: each job after those it depends on,
// results collected, its DAG (nodes, edges, roots, leaves, levels, node
// states) shown before and after; starting it twice answers false.
func TestSeedFlowRunsAsADAG(t *testing.T) {
	t.Parallel()
	a := startAgent(t, agentOpts{tcpAPI: true})
	c := newSeedClient(t, a)
	a.call(t, "context.create", map[string]any{"id": 1}, nil)
	out := filepath.Join(t.TempDir(), "order")
	job := func(id int, script string, deps ...int) {
		c.call(t, "job.create", map[string]any{"context_id": 1, "job": map[string]any{"id": id, "script_type": "sh",
			"script": script + " >> " + out, "dependends": deps}}, nil)
	}
	job(1, `sleep 0.3; echo "k=v" >> "$HYPHAE_RESULT"; echo A`)
	job(2, `echo B`, 1)
	job(3, `echo C`, 1, 2)
	var f seedFlow
	c.call(t, "flow.create", map[string]any{"context_id": 1, "flow": map[string]any{"id": 7, "jobs": []int{3, 1, 2}}}, &f)
	if f.ID != 7 || f.Status != "dispatched" || !slices.Equal(f.Jobs, []uint32{3, 1, 2}) {
		t.Fatalf("flow.create: %+v", f)
	}
	var d seedDAG
	c.call(t, "flow.dag", map[string]any{"context_id": 1, "id": 7}, &d)
	if !slices.Equal(d.Roots, []uint32{1}) || !slices.Equal(d.Leaves, []uint32{3}) || len(d.Edges) != 3 ||
		len(d.Levels) != 3 || !slices.Equal(d.Levels[1], []uint32{2}) || !slices.Equal(d.states(), []string{"pending"}) {
		t.Fatalf("flow.dag before start: %+v", d)
	}
	var started bool
	c.call(t, "flow.start", map[string]any{"context_id": 1, "id": 7}, &started)
	if !started {
		t.Fatal("flow.start answered false for a created flow")
	}
	c.call(t, "flow.start", map[string]any{"context_id": 1, "id": 7}, &started)
	if started {
		t.Fatal("flow.start answered true for a flow started already")
	}
	if f = waitSeedFlow(t, c, 7); f.Status != "finished" || f.Result["job1.k"] != "v" {
		t.Fatalf("flow ended %+v", f)
	}
	if b, _ := os.ReadFile(out); string(b) != "A\nB\nC\n" {
		t.Fatalf("jobs ran in the order %q, want A, B, C", b)
	}
	c.call(t, "flow.dag", map[string]any{"context_id": 1, "id": 7}, &d)
	if !slices.Equal(d.states(), []string{"completed"}) || !slices.Equal(d.Nodes["3"].Depends, []uint32{1, 2}) {
		t.Fatalf("flow.dag after: %+v", d)
	}
	var j seedJob
	c.call(t, "job.load", map[string]any{"context_id": 1, "caller_id": f.CallerID, "id": 3}, &j)
	if j.Status != "finished" || !slices.Equal(j.Dependends, []uint32{1, 2}) || len(j.Prerequisites) != 0 {
		t.Fatalf("job 3 after the flow: %+v", j)
	}
}

// Hyphae's own flow.start {context, id} starts a seed-made flow too, and
// flow.create refuses what is no DAG with the reason.
func TestSeedFlowStartedTheHyphaeWayAndRefusals(t *testing.T) {
	t.Parallel()
	a := startAgent(t, agentOpts{tcpAPI: true})
	c := newSeedClient(t, a)
	a.call(t, "context.create", map[string]any{"id": 1}, nil)
	for id, deps := range map[int][]int{1: nil, 2: {3}, 3: {2}, 4: {99}} {
		c.call(t, "job.create", map[string]any{"context_id": 1, "job": map[string]any{"id": id, "script_type": "sh",
			"script": "true", "dependends": deps}}, nil)
	}
	for jobs, want := range map[string][]int{"cycle": {1, 2, 3}, "not in the flow": {4}, "no job": {1, 5}} {
		_, e := c.try(t, "flow.create", map[string]any{"context_id": 1, "flow": map[string]any{"jobs": want}})
		if e == nil || e.Code != api.CodeInvalidParams || !strings.Contains(e.Message, jobs) {
			t.Errorf("flow.create %v: %v, want an error saying %q", want, e, jobs)
		}
	}
	var f seedFlow
	c.call(t, "flow.create", map[string]any{"context_id": 1, "flow": map[string]any{"id": 5, "jobs": []int{1}}}, &f)
	var v struct {
		Status string `json:"status"`
	}
	a.call(t, "flow.start", map[string]any{"context": 1, "id": 5}, &v)
	if v.Status != "started" && v.Status != "finished" {
		t.Fatalf("flow.start {context, id}: status %q", v.Status)
	}
	if f = waitSeedFlow(t, c, 5); f.Status != "finished" {
		t.Fatalf("flow 5 ended %+v", f)
	}
}
