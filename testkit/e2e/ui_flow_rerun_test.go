package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// A saga flow whose last job fails shows its compensation (the flow's
// and the undone job's) in the flow view; once the cause is fixed, "Rerun
// from here" on the failed job opens a new run that finishes.
func TestUIBrowserFlowCompensationAndRerunFrom(t *testing.T) {
	t.Parallel()
	b := newBrowser(t)
	a := startUIAgent(t)
	gate := filepath.Join(t.TempDir(), "fixed")
	var f struct {
		ID     uint64 `json:"id"`
		Status string `json:"status"`
	}
	// The run ends error (exit 1): its JSON is on stdout all the same.
	out, _, _ := hyTry("flow", "run", a.flowFile(t, fmt.Sprintf(`name: saga
context: 1
jobs:
  make: {type: sh, script: 'echo made', compensate: {type: sh, script: 'echo undone'}}
  check: {type: sh, needs: make, script: '[ -f %s ] || { echo not yet >&2; exit 1; }'}
`, gate)), "--wait", "--json", "--data-dir", a.dir)
	decode(t, out, &f)
	login(t, a, b)

	b.visit(fmt.Sprintf("#/flow/1/%d", f.ID), `document.querySelector('#flow-compensation [data-state]')?.dataset.state === 'compensated'`)
	if got := b.eval(`document.querySelector('#flow tr[data-name="make"] [data-compensation]').dataset.compensation + ' ' +
		document.querySelector('#dag g.node[data-name="make"]').dataset.compensation`); got != "completed completed" {
		t.Fatalf("make's compensation in the jobs table and the DAG: %q; want completed in both", got)
	}
	b.shot("flow-compensated")

	if err := os.WriteFile(gate, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	b.click("Rerun from here on check", `#flow tr[data-name="check"] button.rerun-from`)
	old := fmt.Sprintf("#/flow/1/%d", f.ID)
	b.until("the new run opened", `location.hash.startsWith('#/flow/1/') && location.hash !== `+fmt.Sprintf("%q", old))
	b.until("the new run finished", `document.querySelector('#flow-status [data-state]')?.dataset.state === 'finished'`)
	var id uint64
	if _, err := fmt.Sscanf(b.eval(`location.hash`), "#/flow/1/%d", &id); err != nil {
		t.Fatal(err)
	}
	var st struct {
		Status string `json:"status"`
		Name   string `json:"name"`
	}
	a.call(t, "flow.status", map[string]any{"context": 1, "id": id}, &st)
	if id == f.ID || st.Status != "finished" || st.Name != "saga" {
		t.Fatalf("flow %d after Rerun from here: %+v; want a new run of saga, finished", id, st)
	}
}
