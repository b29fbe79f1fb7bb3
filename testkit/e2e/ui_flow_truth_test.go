package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The flow views tell the same truth as the rest of the dashboard (issue
// 41): the flows list counts the jobs the flow page counts (a
// compensation is not one more job); a job its flow cancelled says
// cancelled in the jobs list as in the flow; a missing flow is said in
// the CLI's words, not as Go call chains; the DAG and the jobs table say
// where each job ran, and a rerun marks the jobs it reused.
func TestUIBrowserFlowViewsTellOneTruth(t *testing.T) {
	t.Parallel()
	b := newBrowser(t)
	a := startUIAgent(t)
	gate := filepath.Join(t.TempDir(), "fixed")
	var f struct {
		ID   uint64 `json:"id"`
		Jobs []struct {
			Name string `json:"name"`
			Key  string `json:"key"`
		} `json:"jobs"`
	}
	out, _, _ := hyTry("flow", "run", a.flowFile(t, fmt.Sprintf(`name: truth
context: 1
jobs:
  base: {type: sh, script: 'echo base'}
  make: {type: sh, script: 'echo made', compensate: {type: sh, script: 'echo undone'}}
  check: {type: sh, needs: [base, make], script: '[ -f %s ] || { echo not yet >&2; exit 1; }'}
  after: {type: sh, needs: check, script: 'echo after'}
`, gate)), "--wait", "--json", "--data-dir", a.dir)
	decode(t, out, &f)
	var afterKey string
	for _, j := range f.Jobs {
		if j.Name == "after" {
			afterKey = j.Key
		}
	}
	login(t, a, b)

	// One count.
	b.visit("#/flows", fmt.Sprintf(`!!document.querySelector('#flows tr[data-flow="%d"] .progress')`, f.ID))
	listed := b.eval(fmt.Sprintf(`document.querySelector('#flows tr[data-flow="%d"] .progress .muted').textContent`, f.ID))
	b.visit(fmt.Sprintf("#/flow/1/%d", f.ID), `document.querySelector('#flow-compensation [data-state]')?.dataset.state === 'compensated'`)
	shown := b.eval(`document.querySelector('#flow .progress .muted').textContent`)
	if listed != shown || shown != "4/4" {
		t.Errorf("flows list says %q, the flow page %q; want one count, 4/4 (the file's four jobs)", listed, shown)
	}

	// Where each job ran.
	host, _ := os.Hostname()
	if got := b.eval(`document.querySelector('#dag g.node[data-name="make"]').dataset.host + '|' +
		document.querySelector('#flow tr[data-name="make"] td.ran-on').textContent`); host != "" && got != host+"|"+host {
		t.Errorf("where make ran, in the DAG and the jobs table: %q; want the host name %q in both", got, host)
	}
	if got := b.eval(`document.querySelector('#dag g.node[data-name="make"]').textContent`); host != "" && !strings.Contains(got, host) {
		t.Errorf("the DAG node of make reads %q; want it to name %q", got, host)
	}

	// One word.
	flowWord := b.eval(`document.querySelector('#flow tr[data-name="after"] [data-state]').dataset.state`)
	b.visit("#/jobs", fmt.Sprintf(`!!document.querySelector('#jobs-list tr[data-key=%q] [data-state]')`, afterKey))
	listWord := b.eval(fmt.Sprintf(`document.querySelector('#jobs-list tr[data-key=%q] [data-state]').dataset.state`, afterKey))
	if flowWord != "cancelled" || listWord != flowWord {
		t.Errorf("the cancelled job reads %q in the flow and %q in the jobs list; want cancelled in both", flowWord, listWord)
	}

	// One message.
	b.visit("#/flow/1/999", `!!document.querySelector('#view .note')`)
	if got := b.eval(`document.querySelector('#view .note').textContent`); !strings.Contains(got, "flow 999 not found in context 1") ||
		strings.Contains(got, "store.") || strings.Contains(got, "scheduler.") {
		t.Errorf("a missing flow reads %q; want the CLI's words, flow 999 not found in context 1", got)
	}

	// A rerun marks the jobs it reused.
	if err := os.WriteFile(gate, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	b.visit(fmt.Sprintf("#/flow/1/%d", f.ID), `!!document.querySelector('#flow tr[data-name="check"] button.rerun-from')`)
	b.click("Rerun from here on check", `#flow tr[data-name="check"] button.rerun-from`)
	old := fmt.Sprintf("#/flow/1/%d", f.ID)
	b.until("the new run opened", `location.hash.startsWith('#/flow/1/') && location.hash !== `+fmt.Sprintf("%q", old))
	b.until("the new run finished", `document.querySelector('#flow-status [data-state]')?.dataset.state === 'finished'`)
	// base completed and is reused; make's compensation undid it, so it
	// runs again, as check does.
	if got := b.eval(`document.querySelector('#flow tr[data-name="base"] td.ran-on').textContent + '|' +
		!!document.querySelector('#dag g.node[data-name="base"]').dataset.reused + '|' +
		document.querySelector('#flow tr[data-name="check"] td.ran-on').textContent`); !strings.HasPrefix(got, "reused") ||
		!strings.Contains(got, "|true|") || strings.Contains(got, "|true|reused") {
		t.Errorf("after a rerun from check, base|reused in the DAG|check read %q; want base reused, check not", got)
	}
	b.shot("flow-where-ran")
}
