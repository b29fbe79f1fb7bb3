package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hyphae-run/hyphae/testkit/testnet"
)

// A private network joined end to end: alice's agent runs with a swarm
// key, bob's without. The first join writes the key into bob's data dir,
// points bob's config at it and asks for a restart (the code stays
// unused); after the restart the same line joins, and bob's job runs in
// alice's context. Each in a namespace of its own, mDNS off.
func TestInviteJoinPrivateNetwork(t *testing.T) {
	t.Parallel()
	lab := testnet.NewLab(t, 2)
	alice := newPrivateDataDir(t)
	bob := newDataDir(t)
	args := []string{"--api", "off", "--listen", "/ip4/0.0.0.0/tcp/4001", "--no-mdns", "--no-nat-portmap",
		"--presence-interval", "500ms"}
	startRun(t, alice, lab.Exec(0), args...)
	bobRun := startRun(t, bob, lab.Exec(1), args...)
	hy(t, "context", "create", "--id", "1", "--data-dir", alice)
	code := inviteCode(t, alice, "-c", "1", "--role", "executor", "--runner")

	_, stderr, err := hyTry("join", code, "--name", "alice", "--data-dir", bob)
	if err == nil || !strings.Contains(stderr, "private") || !strings.Contains(stderr, "restart this agent") {
		t.Fatalf("first join on a public agent: %v, %q; want refused, asking for a restart", err, stderr)
	}
	key, _ := os.ReadFile(filepath.Join(bob, "swarm.key"))
	want, _ := os.ReadFile(filepath.Join(alice, "swarm.key"))
	if len(want) == 0 || string(key) != string(want) {
		t.Fatalf("bob's swarm.key is %q, want alice's", key)
	}
	if list := hy(t, "invite", "list", "--data-dir", alice); !strings.Contains(list, "open") {
		t.Fatalf("after the refused join, invite list says %q; want the code still open", list)
	}

	bobRun.kill()
	startRun(t, bob, lab.Exec(1), args...)
	if out := hy(t, "join", code, "--name", "alice", "--data-dir", bob); !strings.Contains(out, "executor in context 1") {
		t.Fatalf("join after the restart said %q", out)
	}
	if st, res := jobAt(t, bob, "1", "alice", "x=1"); st != "finished" || res["x"] != "1" {
		t.Fatalf("bob's job at alice over the private network: %s %v", st, res)
	}
}

// jobAt runs, from the agent of dir, a job in context ctx at to (a name or
// peer ID) that writes the result line kv, waits, and returns its status
// and result.
func jobAt(t testing.TB, dir, ctx, to, kv string) (string, map[string]string) {
	t.Helper()
	var j struct {
		Status string            `json:"status"`
		Result map[string]string `json:"result"`
	}
	decode(t, hy(t, "job", "run", "-c", ctx, "--to", to, "--script", `echo "`+kv+`" >> "$HYPHAE_RESULT"`,
		"--wait", "--json", "--data-dir", dir), &j)
	return j.Status, j.Result
}

// newPrivateDataDir is newDataDir with `hyphae init --swarm-key`.
func newPrivateDataDir(t testing.TB) string {
	t.Helper()
	d, err := os.MkdirTemp("", "hy")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	dir := filepath.Join(d, "d")
	hy(t, "init", "--swarm-key", "--data-dir", dir)
	return dir
}

// inviteCode runs `hyphae invite ARGS` on dir and returns the code of the
// one line it prints, `hyphae join CODE`.
func inviteCode(t testing.TB, dir string, args ...string) string {
	t.Helper()
	line := strings.TrimSpace(hy(t, append(append([]string{"invite"}, args...), "--data-dir", dir)...))
	code, ok := strings.CutPrefix(line, "hyphae join ")
	if !ok || strings.Contains(code, " ") {
		t.Fatalf("invite printed %q, want one line: hyphae join CODE", line)
	}
	return code
}
