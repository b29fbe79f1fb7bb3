package node_test

import (
	"testing"
	"time"

	"github.com/hyphae-run/hyphae/node/api/wire"
)

// job.logs with meta tells each line's stream and time, for a job run
// here and for one that ran on another agent (read there); the plain
// lines stay as they were. The timeline of the job sent away says where
// it went, and the one of the job that ran says it started and ended.
func TestJobLogsMetaLocalAndRemote(t *testing.T) {
	t.Parallel()
	b := startAgent(t, agentOpts{})
	a := startAgent(t, agentOpts{bootstrap: []string{b.addr(t)}})
	grantExecutor(t, b, 3, a.peerID())
	script := "echo to-out; echo to-err >&2"
	var j wire.JobView
	a.call(t, "job.run", map[string]any{"to": b.peerID(), "context": 3, "type": "sh", "script": script}, &j)
	ran := endedJobs(t, b, 3, 1)

	check := func(where string, at *agent, ctxID uint64, key string) {
		t.Helper()
		var lv wire.LogsView
		eventually(t, 30*time.Second, where+": two lines with their streams", func() bool {
			at.call(t, "job.logs", map[string]any{"context": ctxID, "key": key, "meta": true}, &lv)
			return len(lv.Entries) >= 2
		})
		streams := map[string]string{}
		for i, e := range lv.Entries {
			if e.Line != lv.Lines[i] || e.TS == "" {
				t.Errorf("%s: entry %d = %+v, line %q: want the same line, with a time", where, i, e, lv.Lines[i])
			}
			streams[e.Line] = e.Stream
		}
		if streams["to-out"] != "stdout" || streams["to-err"] != "stderr" {
			t.Errorf("%s: streams %v, want to-out on stdout and to-err on stderr (source %q)", where, streams, lv.Source)
		}
	}
	check("on the runner's agent", b, 3, ran[0].Key)
	check("at the origin, read there", a, j.ContextID, j.Key)

	var tl wire.TimelineView
	b.call(t, "job.timeline", map[string]any{"context": 3, "key": ran[0].Key}, &tl)
	if !hasEvent(tl, "started") || !hasEvent(tl, "finished") || len(tl.Attempts) != 1 || tl.Attempts[0].Status != "finished" {
		t.Errorf("timeline where it ran: %+v", tl)
	}
	eventually(t, 30*time.Second, "the origin's timeline says sent, then finished", func() bool {
		a.call(t, "job.timeline", map[string]any{"context": j.ContextID, "key": j.Key}, &tl)
		return hasEvent(tl, "sent") && hasEvent(tl, "finished")
	})
}

// hasEvent says tl has an entry for event.
func hasEvent(tl wire.TimelineView, event string) bool {
	for _, e := range tl.Timeline {
		if e.Event == event {
			return true
		}
	}
	return false
}
