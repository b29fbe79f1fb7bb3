package e2e

import (
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hyphae-run/hyphae/testkit/need"
	"github.com/hyphae-run/hyphae/testkit/testnet"
)

type jobOut struct {
	Key     string            `json:"key"`
	Status  string            `json:"status"`
	Result  map[string]string `json:"result"`
	Error   string            `json:"error"`
	Attempt int64             `json:"attempt"`
}

// localArgs are `hyphae run` arguments for an agent on the host:
// loopback only, no API port, no mDNS, no port mapping (testnet.OffFlags).
func localArgs() []string {
	return testnet.HostRunArgs("--api", "off", "--listen", "/ip4/127.0.0.1/tcp/0")
}

func TestCLIGoldenPath(t *testing.T) {
	t.Parallel()
	dir := newDataDir(t)
	var id struct {
		PeerID       string `json:"peer_id"`
		AgeRecipient string `json:"age_recipient"`
	}
	decode(t, hy(t, "id", "--json", "--data-dir", dir), &id)
	if !strings.HasPrefix(id.PeerID, "12D3KooW") || !strings.HasPrefix(id.AgeRecipient, "age1") {
		t.Fatalf("id --json = %+v", id)
	}
	// Before the agent runs, commands say so, with exit code 3.
	_, stderr, err := hyTry("context", "list", "--data-dir", dir)
	if exitCode(err) != 3 || !strings.Contains(stderr, "hyphae run --data-dir") {
		t.Fatalf("no agent: exit %d, %q", exitCode(err), stderr)
	}
	p := startRun(t, dir, nil, localArgs()...)
	for _, id := range []string{"10", "1", "2"} {
		hy(t, "context", "create", "--id", id, "--data-dir", dir)
	}
	if out := hy(t, "context", "list", "--data-dir", dir); !regexp.MustCompile(`(?s)^context 1\n.*context 2\n.*context 10\n`).MatchString(out) {
		t.Fatalf("context list, want contexts 1, 2, 10 in that order:\n%s", out)
	}
	// Grants name actors by peer ID, and context show says who is who.
	var other struct {
		PeerID string `json:"peer_id"`
	}
	decode(t, hy(t, "id", "--json", "--data-dir", newDataDir(t)), &other)
	hy(t, "context", "grant", "1", "--actor", other.PeerID, "--role", "reader", "--data-dir", dir)
	show := hy(t, "context", "show", "1", "--data-dir", dir)
	if !strings.Contains(show, id.PeerID+" (this agent)") || !strings.Contains(show, "readers:   2 "+other.PeerID) {
		t.Fatalf("context show does not name the admin (this agent) and the reader by peer ID:\n%s", show)
	}

	var j jobOut
	decode(t, hy(t, "job", "run", "--context", "1", "--type", "sh", "--wait", "--json", "--data-dir", dir,
		"--script", `echo line1; echo "answer=42" >> "$HYPHAE_RESULT"`), &j)
	if j.Status != "finished" || j.Result["answer"] != "42" {
		t.Fatalf("job run --wait --json = %+v", j)
	}
	if out := hy(t, "job", "logs", "1", j.Key, "--data-dir", dir); !strings.Contains(out, "line1") {
		t.Fatalf("job logs = %q", out)
	}
	if out := hy(t, "job", "status", "1", j.Key, "--data-dir", dir); !strings.Contains(out, "finished") {
		t.Fatalf("job status = %q", out)
	}
	// A failing job: exit 1 with the reason on stderr.
	out, stderr, err := hyTry("job", "run", "--context", "1", "--script", "echo bad >&2; exit 7", "--wait", "--data-dir", dir)
	if exitCode(err) != 1 || !strings.Contains(stderr, "exit status 7") {
		t.Fatalf("failing job: exit %d\nstdout %s\nstderr %s", exitCode(err), out, stderr)
	}
	// job list: newest first under a header, filtered by status, limited.
	if out := hy(t, "job", "list", "1", "--data-dir", dir); !regexp.MustCompile(
		`^KEY +NAME +TYPE +STATUS +ATTEMPT +FLOW +RUNNER +CREATED +DURATION +ERROR\n\S+ +- +sh +error +1/1 .*exit status 7.*\n` + j.Key + ` +- +sh +finished `).MatchString(out) {
		t.Fatalf("job list:\n%s\nwant a header, then the failed job (the newest), then %s", out, j.Key)
	}
	var listed []jobOut
	decode(t, hy(t, "job", "list", "1", "--status", "finished", "--json", "--data-dir", dir), &listed)
	if len(listed) != 1 || listed[0].Key != j.Key {
		t.Fatalf("job list --status finished: %+v, want %s alone", listed, j.Key)
	}
	out, stderr, err = hyTry("job", "list", "1", "--limit", "1", "--json", "--data-dir", dir)
	decode(t, out, &listed)
	if err != nil || len(listed) != 1 || listed[0].Status != "error" || !strings.Contains(stderr, "showing the newest 1") {
		t.Fatalf("job list --limit 1: %v, %+v, stderr %q; want the newest job and a note that there are more", err, listed, stderr)
	}
	for _, c := range [][]string{{"runner", "list", "1"}, {"flow", "list", "--context", "1"}} {
		out, stderr, err := hyTry(append(c, "--data-dir", dir)...)
		if err != nil || out != "" || !strings.HasPrefix(stderr, "no ") || !strings.Contains(stderr, "in context 1 (hyphae ") {
			t.Fatalf("%v with none: %v, stdout %q, stderr %q; want a note saying there are none and how to make one", c, err, out, stderr)
		}
	}
	if _, stderr, err := hyTry("job", "list", "1", "--status", "started", "--data-dir", dir); err != nil ||
		stderr != "no jobs in context 1 with status started\n" {
		t.Fatalf("job list with none started: %v, stderr %q", err, stderr)
	}
	// Bad flags: usage error, exit 2.
	if _, _, err := hyTry("job", "run", "--context", "x", "--data-dir", dir); exitCode(err) != 2 {
		t.Fatalf("bad flag: exit %d, want 2", exitCode(err))
	}
	// An argument only the agent can judge bad is bad usage too, exit 2.
	if _, stderr, err := hyTry("job", "run", "--to", "runner:7", "--context", "1", "--script", "true", "--data-dir", dir); exitCode(err) != 2 ||
		!strings.Contains(stderr, "context 1 has no runner:7 (hyphae runner list 1)") {
		t.Fatalf("job run --to a runner record that does not exist: exit %d, stderr %q; want 2 and why", exitCode(err), stderr)
	}
	if _, stderr, err := hyTry("job", "list", "1", "--status", "done", "--data-dir", dir); exitCode(err) != 2 ||
		!strings.Contains(stderr, "finished") {
		t.Fatalf("job list --status done: exit %d, stderr %q; want 2 and the statuses there are", exitCode(err), stderr)
	}
	if out := hy(t, "peers", "--json", "--data-dir", dir); !strings.HasPrefix(strings.TrimSpace(out), "[") {
		t.Fatalf("peers --json = %q", out)
	}
	// Drain: the agent exits 0.
	hy(t, "drain", "--data-dir", dir)
	if err := p.wait(t, time.Minute); err != nil {
		t.Fatalf("agent after drain: %v\n%s", err, p.log)
	}
}

func TestSIGTERMExitsZeroAndDataSurvivesRestart(t *testing.T) {
	t.Parallel()
	need.Tool(t, "redis-server", "redis-server")
	dir := newDataDir(t)
	p := startRun(t, dir, nil, localArgs()...)
	hy(t, "context", "create", "--id", "4", "--data-dir", dir)
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	if err := p.wait(t, time.Minute); err != nil {
		t.Fatalf("SIGTERM: exit %v\n%s", err, p.log)
	}
	startRun(t, dir, nil, localArgs()...)
	if out := hy(t, "context", "show", "4", "--data-dir", dir); !strings.Contains(out, "context 4") {
		t.Fatalf("after restart: %q", out)
	}
}
