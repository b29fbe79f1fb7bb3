package e2e

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// recordRPCs has the page note the method of every JSON-RPC call it
// makes (window.rpcs), so a test can tell an action was not sent.
const recordRPCs = `(() => {
  window.rpcs = [];
  const f = window.fetch;
  window.fetch = (url, o) => {
    if (url === '/rpc') window.rpcs.push(JSON.parse(o.body).method);
    return f(url, o);
  };
})()`

// sent says whether the page called method since recordRPCs.
func (b *browser) sent(method string) bool {
	b.t.Helper()
	return b.eval(`window.rpcs.includes('`+method+`')`) == "true"
}

// Destructive actions ask first: Stop on a running job, Cancel on a live
// flow and Remove on a schedule turn into a question; No, Escape and the
// view redrawing meanwhile send nothing (the job keeps running, the flow
// stays live, the schedule stays), and Yes does it.
func TestUIBrowserDestructiveActionsAskFirst(t *testing.T) {
	t.Parallel()
	b := newBrowser(t)
	a := startUIAgent(t)
	hold := filepath.Join(t.TempDir(), "never")
	key := a.submit(t, fmt.Sprintf("echo running; while [ ! -f %s ]; do sleep 0.05; done", hold))
	login(t, a, b)
	b.eval(recordRPCs)

	b.visit("#/job/1/"+key, `document.querySelector('#job h2 [data-state]')?.dataset.state === 'started'`)
	b.click("Stop", `#job-stop`)
	q := b.until("the question", `document.querySelector('#job .confirm')?.textContent`)
	if !strings.Contains(q, "Really stop "+key+"?") || !strings.Contains(q, "Yes") || !strings.Contains(q, "No") {
		t.Fatalf("Stop asks %q; want Really stop %s? Yes No", q, key)
	}
	b.click("No", `#job .confirm .confirm-no`)
	b.until("the Stop button back", `!!document.querySelector('#job-stop') && !document.querySelector('.confirm')`)
	b.click("Stop again", `#job-stop`)
	b.until("the question again", `!!document.querySelector('#job .confirm')`)
	b.eval(`document.dispatchEvent(new KeyboardEvent('keydown', {key: 'Escape', bubbles: true}))`)
	b.until("the Stop button back after Escape", `!!document.querySelector('#job-stop') && !document.querySelector('.confirm')`)
	if b.sent("job.stop") {
		t.Fatal("the page sent job.stop without Yes")
	}
	var j jobOut
	a.call(t, "job.load", map[string]any{"context": 1, "key": key}, &j)
	if j.Status != "started" {
		t.Fatalf("job %s after Stop, No and Escape: %s; want it still started", key, j.Status)
	}
	b.confirm("Stop", `#job-stop`)
	b.until("the job shown ended", `document.querySelector('#job h2 [data-state]')?.dataset.state === 'error'`)
	a.call(t, "job.load", map[string]any{"context": 1, "key": key}, &j)
	if j.Status != "error" {
		t.Fatalf("job %s after Stop and Yes: %s; want error (stopped)", key, j.Status)
	}

	testCancelAsksFirst(t, a, b)
	testRemoveAsksFirst(t, a, b)
}

// testCancelAsksFirst: Cancel on a running flow, then No, and the flow
// stays live; a redraw while the question is open keeps it; Yes cancels.
func testCancelAsksFirst(t *testing.T, a *uiAgent, b *browser) {
	t.Helper()
	hold := filepath.Join(t.TempDir(), "never")
	var f struct {
		ID uint64 `json:"id"`
	}
	decode(t, a.hy(t, "flow", "run", a.flowFile(t, fmt.Sprintf(`name: slow
context: 1
jobs:
  wait: {type: sh, script: 'while [ ! -f %s ]; do sleep 0.05; done'}
  after: {type: sh, needs: wait, script: 'echo after'}
`, hold)), "--json"), &f)
	b.visit(fmt.Sprintf("#/flow/1/%d", f.ID), `document.querySelector('#dag g.node[data-name="wait"]')?.dataset.state === 'running'`)
	b.click("Cancel", `#flow-cancel`)
	q := b.until("the question", `document.querySelector('#flow .confirm')?.textContent`)
	if !strings.Contains(q, fmt.Sprintf("Really cancel flow %d?", f.ID)) {
		t.Fatalf("Cancel asks %q; want Really cancel flow %d?", q, f.ID)
	}
	b.eval(`H.view.refresh()`)
	b.until("the question kept over a redraw", `!!document.querySelector('#flow .confirm') && !document.querySelector('#flow-cancel')`)
	b.click("No", `#flow .confirm .confirm-no`)
	b.until("the Cancel button back", `!!document.querySelector('#flow-cancel')`)
	var st struct {
		Status string `json:"status"`
	}
	a.call(t, "flow.status", map[string]any{"context": 1, "id": f.ID}, &st)
	if b.sent("flow.cancel") || st.Status == "error" || st.Status == "finished" {
		t.Fatalf("flow %d after Cancel and No: %s (flow.cancel sent: %v); want it live, nothing sent", f.ID, st.Status, b.sent("flow.cancel"))
	}
	b.confirm("Cancel", `#flow-cancel`)
	b.until("the flow ended", `document.querySelector('#flow-status [data-state]')?.dataset.state === 'error'`)
	a.call(t, "flow.status", map[string]any{"context": 1, "id": f.ID}, &st)
	if st.Status != "error" {
		t.Fatalf("flow %d after Cancel and Yes: %s; want error (cancelled)", f.ID, st.Status)
	}
}

// testRemoveAsksFirst: Remove on a schedule, then No, and it stays; Yes
// removes it.
func testRemoveAsksFirst(t *testing.T, a *uiAgent, b *browser) {
	t.Helper()
	a.call(t, "flow.schedule.add", map[string]any{"context": 1, "file_content": `name: nightly
context: 1
schedule: '@every 24h'
jobs:
  backup: {type: sh, script: 'echo backup'}
`}, nil)
	row := `#schedules tr[data-schedule="nightly"]`
	b.visit("#/schedules", `!!document.querySelector('`+row+`')`)
	b.click("Remove", row+` button.remove`)
	b.click("No", row+` .confirm .confirm-no`)
	b.until("the Remove button back", `!!document.querySelector('`+row+` button.remove')`)
	count := func() int {
		var ss []struct {
			Name string `json:"name"`
		}
		a.call(t, "flow.schedule.list", map[string]any{"context": 1}, &ss)
		return len(ss)
	}
	if b.sent("flow.schedule.remove") || count() != 1 {
		t.Fatal("Remove and No removed the schedule")
	}
	b.confirm("Remove", row+` button.remove`)
	b.until("the schedule gone", `!document.querySelector('`+row+`')`)
	if n := count(); n != 0 {
		t.Fatalf("%d schedules after Remove and Yes; want none", n)
	}
}
