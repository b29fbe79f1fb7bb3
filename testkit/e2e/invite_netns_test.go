package e2e

import (
	"strings"
	"testing"

	"github.com/hyphae-run/hyphae/testkit/testnet"
)

// Two machines in two commands, across two network namespaces with mDNS
// off, so that bob can only find alice through the code: `hyphae invite`
// on alice prints the line, bob runs it, then runs a job in alice's
// context by her name. The same line again is refused, saying why.
func TestInviteJoinAcrossNamespaces(t *testing.T) {
	t.Parallel()
	lab := testnet.NewLab(t, 2)
	alice, bob := newDataDir(t), newDataDir(t)
	for i, dir := range []string{alice, bob} {
		startRun(t, dir, lab.Exec(i), append(hostRemoteArgs(t), "--api", "off", "--listen", "/ip4/0.0.0.0/tcp/4001",
			"--no-mdns", "--no-nat-portmap", "--presence-interval", "500ms")...)
	}
	hy(t, "context", "create", "--id", "1", "--data-dir", alice)
	line := strings.TrimSpace(hy(t, "invite", "-c", "1", "--role", "executor", "--runner", "--data-dir", alice))
	code, ok := strings.CutPrefix(line, "hyphae join ")
	if !ok || strings.Contains(code, " ") {
		t.Fatalf("invite printed %q, want one line: hyphae join CODE", line)
	}
	out := hy(t, "join", code, "--name", "alice", "--data-dir", bob)
	if !strings.Contains(out, "executor in context 1") {
		t.Fatalf("join said %q", out)
	}
	if st, res := jobAt(t, bob, "1", "alice", "x=1"); st != "finished" || res["x"] != "1" {
		t.Fatalf("bob's job at alice: %s %v", st, res)
	}
	_, stderr, err := hyTry("join", code, "--data-dir", bob)
	if err == nil || !strings.Contains(stderr, "already used") {
		t.Fatalf("the code again: %v, %q; want refused, already used", err, stderr)
	}
	if list := hy(t, "invite", "list", "--data-dir", alice); !strings.Contains(list, "used") {
		t.Fatalf("invite list: %q", list)
	}
}
