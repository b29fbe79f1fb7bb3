package scheduler_test

import (
	"strings"
	"testing"

	"github.com/hyphae-run/hyphae/context/model"
)

func TestStatusAndList(t *testing.T) {
	e := newEnv(t, 2)
	s := e.sched(t, e.config())
	fl := e.run(t, s, "name: tiny\njobs:\n  a: {type: sh, script: 'true'}\n  b: {type: sh, needs: a, script: 'true'}\n  c: {type: sh, needs: a, script: 'true'}\n  d: {type: sh, needs: [b, c], script: 'true'}\n")
	st := e.wait(t, s, fl.ID)
	order := []string{}
	for _, j := range st.Jobs {
		order = append(order, j.Name)
	}
	if strings.Join(order, ",") != "a,b,c,d" {
		t.Fatalf("topological order %v", order)
	}
	// What the tree drawing (node/flowtext) is made of: depths, needs, progress.
	depth := map[string]int{}
	for _, j := range st.Jobs {
		depth[j.Name] = j.Depth
		if j.State != model.NodeCompleted {
			t.Fatalf("job %s is %s, want completed", j.Name, j.State)
		}
	}
	if depth["a"] != 0 || depth["b"] != 1 || depth["c"] != 1 || depth["d"] != 2 ||
		strings.Join(st.Jobs[3].Needs, ",") != "b,c" || st.Progress.Done != 4 || st.Progress.Total != 4 {
		t.Fatalf("status shape: depths %v, d needs %v, progress %+v", depth, st.Jobs[3].Needs, st.Progress)
	}
	e.create(t, s, "name: later\njobs:\n  x: {type: sh, script: 'true'}\n")
	list, err := s.List(e.ctx, ctxID)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 2 || list[0].Name != "tiny" || list[0].Status != model.FlowFinished ||
		list[0].Progress.Completed != 4 || list[1].Status != model.FlowDispatched || list[1].Progress.Pending != 1 {
		t.Fatalf("List: %+v", list)
	}
}
