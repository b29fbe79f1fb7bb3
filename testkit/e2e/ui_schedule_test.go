package e2e

import "testing"

// The schedules view lists a schedule installed through the API and
// pauses it: the row says paused and so does flow.schedule.list.
func TestUIBrowserSchedulesPause(t *testing.T) {
	t.Parallel()
	b := newBrowser(t)
	a := startUIAgent(t)
	a.call(t, "flow.schedule.add", map[string]any{"context": 1, "file_content": `name: nightly
context: 1
schedule: '@every 24h'
jobs:
  backup: {type: sh, script: 'echo backup'}
`}, nil)
	login(t, a, b)

	row := `document.querySelector('#schedules tr[data-schedule="nightly"]')`
	b.visit("#/schedules", row+`?.dataset.paused === 'false'`)
	if got := b.eval(row + `.textContent.includes('@every 24h')`); got != "true" {
		t.Fatal("the schedules view does not show nightly's cron")
	}
	b.shot("schedules")
	b.click("Pause", `#schedules tr[data-schedule="nightly"] button.pause`)
	b.until("nightly shown paused", row+`?.dataset.paused === 'true' && !!`+row+`.querySelector('button.resume')`)
	var ss []struct {
		Name   string `json:"name"`
		Paused bool   `json:"paused"`
	}
	a.call(t, "flow.schedule.list", map[string]any{"context": 1}, &ss)
	if len(ss) != 1 || ss[0].Name != "nightly" || !ss[0].Paused {
		t.Fatalf("schedules after Pause in the browser: %+v; want nightly paused", ss)
	}
}
