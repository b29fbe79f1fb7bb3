package node_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hyphae-run/hyphae/crypto/envelope"
	"github.com/hyphae-run/hyphae/node/api/wire"
)

// readLogs calls job.logs on a from index from on.
func readLogs(t testing.TB, a *agent, ctxID uint64, key string, from int64) wire.LogsView {
	t.Helper()
	var lv wire.LogsView
	a.call(t, "job.logs", map[string]any{"context": ctxID, "key": key, "from": from}, &lv)
	return lv
}

// followLogs reads a job's log from index from as job logs -f does, until
// the job has ended and no lines remain; it returns every line and how
// many answers said more lines were waiting.
func followLogs(t testing.TB, a *agent, ctxID uint64, key string, from int64) (lines []string, more int) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		lv := readLogs(t, a, ctxID, key, from)
		if lv.Source != "runner" {
			t.Fatalf("job.logs of a job running on a reachable agent: source %q (note %q), want runner", lv.Source, lv.Note)
		}
		lines, from = append(lines, lv.Lines...), lv.Next
		if lv.More {
			more++
			continue
		}
		if lv.Status == "finished" || lv.Status == "error" {
			return lines, more
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("job %s's log did not end within a minute", key)
	return nil, 0
}

// job.logs at the origin of a job sent to another agent reads the job's
// lines there: as they are printed while it runs, and all of them (not
// only the last 50 its result brings) once it has ended, in answers of a
// bounded size.
func TestRemoteJobLogsFollowedLive(t *testing.T) {
	t.Parallel()
	b := startAgent(t, agentOpts{})
	a := startAgent(t, agentOpts{bootstrap: []string{b.addr(t)}})
	grantExecutor(t, b, 3, a.peerID())
	gate := filepath.Join(t.TempDir(), "gate")

	var j wire.JobView
	a.call(t, "job.run", map[string]any{"to": b.peerID(), "context": 3, "type": "sh",
		"script": "echo first; while [ ! -e " + gate + " ]; do sleep 0.05; done; " +
			"i=1; while [ $i -le 1500 ]; do echo line $i; i=$((i+1)); done"}, &j)
	eventually(t, 30*time.Second, "the running job's first line at its origin", func() bool {
		lv := readLogs(t, a, j.ContextID, j.Key, 0)
		return lv.Source == "runner" && slices.Equal(lv.Lines, []string{"first"}) && lv.Status == "started"
	})
	if err := os.WriteFile(gate, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	followed, _ := followLogs(t, a, j.ContextID, j.Key, 1)
	followed = append([]string{"first"}, followed...)

	ran := endedJobs(t, b, 3, 1)
	var there wire.LogsView
	b.call(t, "job.logs", map[string]any{"context": 3, "key": ran[0].Key}, &there)
	if len(there.Lines) < 1501 || !slices.Equal(followed, there.Lines) {
		t.Fatalf("followed at the origin: %d lines, ending %q;\nwant the runner's %d lines, ending %q",
			len(followed), followed[max(len(followed)-3, 0):], len(there.Lines), there.Lines[max(len(there.Lines)-3, 0):])
	}
	all, more := followLogs(t, a, j.ContextID, j.Key, 0)
	if !slices.Equal(all, there.Lines) || more == 0 {
		t.Fatalf("read again from 0: %d lines in answers of which %d said more; want the runner's %d lines, "+
			"in more than one answer", len(all), more, len(there.Lines))
	}
}

// When the agent that ran a job cannot be read — the job's grant there
// revoked, or the agent gone — job.logs at the origin shows the last 50
// lines the job's result brought home, and a note says why.
func TestRemoteJobLogsFallBackToTheResult(t *testing.T) {
	t.Parallel()
	b := startAgent(t, agentOpts{})
	a := startAgent(t, agentOpts{bootstrap: []string{b.addr(t)}})
	grantExecutor(t, b, 3, a.peerID())

	var j wire.JobView
	a.call(t, "job.run", map[string]any{"to": b.peerID(), "context": 3, "type": "sh", "wait": 60,
		"script": "i=1; while [ $i -le 80 ]; do echo line $i; i=$((i+1)); done; exit 4"}, &j)
	if j.Status != "error" {
		t.Fatalf("job = %+v, want it to end in error (exit 4)", j)
	}
	ran := endedJobs(t, b, 3, 1) // its end, logs included, is written as the result leaves
	var there wire.LogsView
	b.call(t, "job.logs", map[string]any{"context": 3, "key": ran[0].Key}, &there)
	if home := readLogs(t, a, j.ContextID, j.Key, 0); home.Source != "runner" || !slices.Equal(home.Lines, there.Lines) {
		t.Fatalf("origin's log from %q = %q,\nwant the runner's %q", home.Source, home.Lines, there.Lines)
	}

	last50 := there.Lines[max(len(there.Lines)-50, 0):]
	fallsBack := func(why string) {
		t.Helper()
		home := readLogs(t, a, j.ContextID, j.Key, 0)
		if home.Source != "result" || !strings.Contains(home.Note, why) || !slices.Equal(home.Lines, last50) ||
			home.Lines[0] != "line 32" || home.Status != "error" {
			t.Fatalf("origin's log = %+v,\nwant the result's last 50 lines %q and a note containing %q", home, last50, why)
		}
	}
	b.call(t, "context.revoke", map[string]any{"id": 3, "actor": a.peerID(), "role": "executor"}, nil)
	fallsBack("logs refused: permission denied")
	b.stop(t)
	eventually(t, 30*time.Second, "a to see b gone", func() bool {
		return readLogs(t, a, j.ContextID, j.Key, 0).Note == "not connected"
	})
	fallsBack("not connected")
}

// statusAnswer sends a status request for the log of origin job job (of
// the sender's context 1) to b's context target, as x, and returns b's
// answer.
func (x *attacker) statusAnswer(t *testing.T, b *agent, target uint64, job, ref string) map[string]any {
	t.Helper()
	plain, _ := json.Marshal(map[string]any{"ref": ref, "origin_ctx": 1, "origin_job": job})
	env, err := envelope.Seal(x.id, b.ID().PeerID(), envelope.TypeStatus, target, 0, plain)
	if err != nil {
		t.Fatal(err)
	}
	x.send(t, b.ID().PeerID(), env.Marshal())
	for {
		select {
		case p := <-x.statuses:
			if p["ack_of"] == ref {
				return p
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("no answer to status request %s", ref)
			return nil
		}
	}
}

// An agent reads only the logs of jobs it sent itself: asking for another
// agent's job gets a refusal that gives nothing away, its own job's lines
// come back, and an answer nobody asked for is counted and dropped.
func TestRemoteLogsOnlyForTheirSender(t *testing.T) {
	t.Parallel()
	b := startAgent(t, agentOpts{tcpAPI: true})
	a := startAgent(t, agentOpts{bootstrap: []string{b.addr(t)}})
	const target = 2
	grantExecutor(t, b, target, a.peerID())
	x := newAttacker(t, b.addr(t))
	b.call(t, "context.grant", map[string]any{"id": target, "actor": x.id.PeerID().String(), "role": "executor"}, nil)

	var theirs wire.JobView
	a.call(t, "job.run", map[string]any{"to": b.peerID(), "context": target, "type": "sh", "wait": 60,
		"script": "echo secret"}, &theirs)
	if theirs.Status != "finished" {
		t.Fatalf("a's job = %+v", theirs)
	}
	// x names a's job exactly as a would (a's origin context is 1 here).
	if theirs.ContextID != 1 {
		t.Fatalf("a's job is in its context %d; the request below names context 1", theirs.ContextID)
	}
	got := x.statusAnswer(t, b, target, theirs.Key, "1/logs:x:1")
	if got["logs"] != nil || !strings.Contains(fmt.Sprint(got["error"]), "no job "+theirs.Key+" from this agent here") {
		t.Fatalf("x asking for a's job's log got %v; want a refusal without lines", got)
	}

	x.send(t, b.ID().PeerID(), seal(t, x.id, b.ID().PeerID(), target, jobPayload("1/message:1:1", target, "echo mine")).Marshal())
	eventually(t, 30*time.Second, "x's own job's lines", func() bool {
		got = x.statusAnswer(t, b, target, "job:1:1", fmt.Sprintf("1/logs:x:%d", time.Now().UnixNano()))
		return got["status"] == "finished"
	})
	if lines, _ := got["logs"].([]any); len(lines) != 1 || lines[0] != "mine" || got["error"] != nil {
		t.Fatalf("x asking for its own job's log got %v; want its one line", got)
	}

	n0 := rejected(t, b, "status_unasked")
	plain, _ := json.Marshal(map[string]any{"ack_of": "2/logs:never:1", "logs": []string{"forged"}})
	env, err := envelope.Seal(x.id, b.ID().PeerID(), envelope.TypeStatus, target, 0, plain)
	if err != nil {
		t.Fatal(err)
	}
	x.send(t, b.ID().PeerID(), env.Marshal())
	eventually(t, 30*time.Second, "the unasked answer to be counted", func() bool {
		return rejected(t, b, "status_unasked") == n0+1
	})
}
