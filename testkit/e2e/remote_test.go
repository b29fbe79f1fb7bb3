package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestCLIRemoteJob is the cross-tenant path as a user walks it with the
// CLI: a job for another agent is refused, each time saying what the other
// agent's operator must do (create the context, then grant a role), and
// once let in it runs there: job run --wait prints the agent and context
// it went to and its output, and job logs at home shows the lines it
// printed, read from there while it runs, from its result once that
// agent is gone.
func TestCLIRemoteJob(t *testing.T) {
	t.Parallel()
	b := startFlowAgent(t, "b", "")
	a := startFlowAgent(t, "a", "", "--bootstrap", b.addr(t))
	a.waitPeerUp(t, b.peer, "sh")
	run := func() (string, string, int) {
		out, errOut, err := hyTry("job", "run", "--to", b.peer, "--context", "4", "--wait", "--data-dir", a.dir,
			"--script", "echo hello from b")
		return out, errOut, exitCode(err)
	}

	// An agent this one has never seen: the job waits for it, and the user
	// is told so rather than left with what looks like a hang.
	var stranger struct {
		PeerID string `json:"peer_id"`
	}
	decode(t, hy(t, "id", "--json", "--data-dir", newDataDir(t)), &stranger)
	out, stderr, err := hyTry("job", "run", "--to", stranger.PeerID, "--context", "4", "--data-dir", a.dir, "--script", "true")
	if err != nil || !strings.Contains(stderr, stranger.PeerID+" is not among the agents this one knows") {
		t.Fatalf("a job for an unknown agent: %v, stderr %q; want a note that it waits", err, stderr)
	}
	if !strings.Contains(out, "follow: hyphae job logs -f ") {
		t.Fatalf("job run without --wait printed %q; want how to follow the job", out)
	}

	_, stderr, code := run()
	if code != 1 || !strings.Contains(stderr, "context 4 does not exist there") ||
		!strings.Contains(stderr, "hyphae context create --id 4") {
		t.Fatalf("no context there: exit %d, stderr %q; want 1 and how to create it", code, stderr)
	}
	b.hy(t, "context", "create", "--id", "4")
	grant := "hyphae context grant 4 --actor " + a.peer + " --role executor"
	if _, stderr, code = run(); code != 1 || !strings.Contains(stderr, grant) {
		t.Fatalf("no grant there: exit %d, stderr %q; want 1 and %q", code, stderr, grant)
	}
	b.hy(t, "context", "grant", "4", "--actor", a.peer, "--role", "executor")
	if show := b.hy(t, "context", "show", "4"); !strings.Contains(show, "executors: 2 "+a.peer) {
		t.Fatalf("context show after the grant:\n%s", show)
	}

	out, stderr, code = run()
	if code != 0 || !strings.Contains(out, "runner: "+b.peer+" (its context 4)") || !strings.Contains(out, "hello from b") {
		t.Fatalf("let in: exit %d\nstdout %s\nstderr %s", code, out, stderr)
	}
	key := strings.Fields(out)[1] // "job <key> in context <n>: finished"
	ctx := strings.TrimSuffix(strings.Fields(out)[4], ":")
	if logs := a.hy(t, "job", "logs", ctx, key); !strings.Contains(logs, "hello from b") {
		t.Fatalf("job logs at home = %q, want the line the job printed there", logs)
	}

	// While a job runs there, job logs at home reads its lines from there,
	// and -f follows them to the end.
	gate := filepath.Join(t.TempDir(), "gate")
	out = a.hy(t, "job", "run", "--to", b.peer, "--context", "4",
		"--script", "echo waiting; while [ ! -e "+gate+" ]; do sleep 0.05; done; echo through")
	key = strings.Fields(out)[1]
	eventually(t, 30*time.Second, "job logs at home to show the running job's line", func() bool {
		logs, stderr, err := hyTry("job", "logs", ctx, key, "--data-dir", a.dir)
		return err == nil && logs == "waiting\n" && stderr == ""
	})
	if err := os.WriteFile(gate, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if logs := a.hy(t, "job", "logs", "-f", ctx, key); logs != "waiting\nthrough\n" {
		t.Fatalf("job logs -f = %q, want both lines the job printed there", logs)
	}

	// With that agent gone, the lines its result brought home are shown,
	// with a note that says why.
	b.proc.kill9()
	eventually(t, 30*time.Second, "job logs to fall back to the result's lines", func() bool {
		logs, stderr, err := hyTry("job", "logs", ctx, key, "--data-dir", a.dir)
		return err == nil && strings.Contains(logs, "through") &&
			strings.Contains(stderr, key+" ran on "+b.peer+", which cannot be read now (not connected)")
	})
}

// TestFlowJobByRunnerRecord: a runner record made with the CLI names an
// agent in a context, and a flow job that says runner: runner:<id> runs
// on that agent.
func TestFlowJobByRunnerRecord(t *testing.T) {
	t.Parallel()
	s := startFlowAgent(t, "s", "")
	r := startFlowAgent(t, "r", "", "--bootstrap", s.addr(t))
	s.hy(t, "context", "create", "--id", "1")
	r.hy(t, "context", "create", "--id", "1")
	r.hy(t, "context", "grant", "1", "--actor", s.peer, "--role", "executor")
	s.waitPeerUp(t, r.peer, "sh")

	out := s.hy(t, "runner", "create", "1", "--peer", r.peer, "--type", "sh")
	if !strings.HasPrefix(out, "runner:1 ") || !strings.Contains(out, r.peer) {
		t.Fatalf("runner create printed %q, want runner:1 and the peer", out)
	}
	var listed []struct {
		Ref    string `json:"ref"`
		Pubkey string `json:"pubkey"`
	}
	decode(t, s.hy(t, "runner", "list", "1", "--json"), &listed)
	if len(listed) != 1 || listed[0].Ref != "runner:1" || listed[0].Pubkey != r.peer {
		t.Fatalf("runner list --json = %+v", listed)
	}

	flow := writeFlow(t, `
name: by-record
context: 1
jobs:
  there: {type: sh, runner: "runner:1", script: 'echo "home=$HOME" >> "$HYPHAE_RESULT"'}
`)
	var f flowOut
	decode(t, s.hy(t, "flow", "run", flow, "--wait", "--json"), &f)
	if f.Status != "finished" {
		t.Fatalf("flow ended %s: %s\n%+v", f.Status, f.Error, f.Jobs)
	}
	if home := f.job(t, "there").Result["home"]; !strings.HasPrefix(home, r.dir) {
		t.Errorf("the job ran in %q, want a job directory under r's data dir %s", home, r.dir)
	}
}

// TestCLIRemoteJobLostRunner: a job sent to another agent that then dies
// for good does not wait for its result deadline (an hour and ten minutes
// by default): once that agent has been down for
// supervisor.runner_lost_after (unknown from runner_grace on), the job
// ends in error saying its runner was lost and that it may still have run
// there, and job run --wait returns.
func TestCLIRemoteJobLostRunner(t *testing.T) {
	t.Parallel()
	b := startFlowAgent(t, "b", "")
	a := startFlowAgent(t, "a", "supervisor:\n  runner_grace: 1s\n  runner_lost_after: 2s\n", "--bootstrap", b.addr(t))
	b.hy(t, "context", "create", "--id", "4")
	b.hy(t, "context", "grant", "4", "--actor", a.peer, "--role", "executor")
	a.waitPeerUp(t, b.peer, "sh")

	type ran struct {
		stdout, stderr string
		code           int
	}
	done := make(chan ran, 1)
	go func() {
		out, stderr, err := hyTry("job", "run", "--to", b.peer, "--context", "4", "--script", "sleep 600", "--wait", "--data-dir", a.dir)
		done <- ran{out, stderr, exitCode(err)}
	}()
	eventually(t, 30*time.Second, "the job to run there", func() bool {
		out, _, err := hyTry("job", "list", "1", "--status", "started", "--json", "--data-dir", a.dir)
		var js []jobOut
		return err == nil && json.Unmarshal([]byte(out), &js) == nil && len(js) == 1
	})
	b.proc.kill9()
	select {
	case r := <-done:
		want, warn := "runner "+b.peer+" unreachable for ", ": lost (it may still have run there; a retry may run it twice)"
		if r.code != 1 || !strings.Contains(r.stderr, want) || !strings.Contains(r.stderr, warn) {
			t.Fatalf("job run --wait after its runner died: exit %d\nstdout %s\nstderr %s\nwant 1 and %q…%q", r.code, r.stdout, r.stderr, want, warn)
		}
	case <-time.After(2 * time.Minute):
		t.Fatal("job run --wait still waits two minutes after its runner died")
	}
}
