package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hyphae-run/hyphae/testkit/testnet"
)

// The namespaced tests run their agents in a testnet.Lab: namespaces
// joined by a bridge that lives in a namespace of its own, so the host's
// network is not touched and mDNS may be on.

// ipCmd runs ip (iproute2) with args.
func ipCmd(args ...string) error {
	out, err := exec.Command("ip", args...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("ip %s: %v: %s", strings.Join(args, " "), err, out)
	}
	return nil
}

type peerOut struct {
	PeerID   string `json:"peer_id"`
	State    string `json:"state"`
	FoundVia string `json:"found_via"`
}

func peerStates(t *testing.T, dir string) map[string]peerOut {
	out, _, err := hyTry("peers", "--json", "--data-dir", dir)
	if err != nil {
		return nil
	}
	var ps []peerOut
	decode(t, out, &ps)
	m := map[string]peerOut{}
	for _, p := range ps {
		m[p.PeerID] = p
	}
	return m
}

func peerIDOf(t *testing.T, dir string) string {
	var id struct {
		PeerID string `json:"peer_id"`
	}
	decode(t, hy(t, "id", "--json", "--data-dir", dir), &id)
	return id.PeerID
}

// Three agents in three namespaces on one bridge, no bootstrap: each finds
// the other two by mDNS; a cut link marks its agent down at the others, and
// mending it brings the agent back.
func TestDiscoveryAcrossNamespacesByMDNS(t *testing.T) {
	t.Parallel()
	lab := testnet.NewLab(t, 3)
	dirs := make([]string, 3)
	ids := make([]string, 3)
	for i := range dirs {
		dirs[i] = newDataDir(t)
		ids[i] = peerIDOf(t, dirs[i])
	}
	start := time.Now() // `hyphae run` of the first agent
	for i := range dirs {
		startRun(t, dirs[i], lab.Exec(i), "--api", "off", "--listen", "/ip4/0.0.0.0/tcp/4001",
			"--presence-interval", "500ms")
	}
	allSee := func(state string, who int) func() bool {
		return func() bool {
			for i := range dirs {
				if i == who {
					continue
				}
				if peerStates(t, dirs[i])[ids[who]].State != state {
					return false
				}
			}
			return true
		}
	}
	for i := range dirs {
		eventually(t, 60*time.Second, fmt.Sprintf("agent %d seen up by the others", i), allSee("up", i))
	}
	// A measurement, not an assertion: how long LAN discovery took from the
	// first `hyphae run` (includes each agent's start-up and API wait).
	t.Logf("all %d agents saw each other by mDNS %v after the first hyphae run", len(dirs), time.Since(start).Round(time.Millisecond))
	if via := peerStates(t, dirs[0])[ids[1]].FoundVia; via != "mdns" && via != "presence" {
		t.Errorf("agent 1 found via %q, want mdns", via)
	}
	if err := lab.Cut(2); err != nil {
		t.Fatal(err)
	}
	eventually(t, 60*time.Second, "agent 2 marked down after its link was cut", allSee("down", 2))
	if err := lab.Mend(2); err != nil {
		t.Fatal(err)
	}
	eventually(t, 90*time.Second, "agent 2 back up after its link was mended", allSee("up", 2))
}

// Two agents in two namespaces, found by mDNS: a job crosses between them
// (on a direct stream), and a job sent while the runner's link is cut is
// delivered once the link is mended and runs exactly once.
func TestJobAcrossNamespacesThroughACut(t *testing.T) {
	t.Parallel()
	lab := testnet.NewLab(t, 2)
	dirs := []string{newDataDir(t), newDataDir(t)}
	ids := []string{peerIDOf(t, dirs[0]), peerIDOf(t, dirs[1])}
	for i, dir := range dirs {
		startRun(t, dir, lab.Exec(i), append(hostRemoteArgs(t), "--api", "off", "--listen", "/ip4/0.0.0.0/tcp/4001",
			"--presence-interval", "500ms")...)
	}
	seen := func(state string) func() bool {
		return func() bool { return peerStates(t, dirs[0])[ids[1]].State == state }
	}
	eventually(t, 60*time.Second, "the runner's agent seen up", seen("up"))
	hy(t, "context", "create", "--id", "3", "--data-dir", dirs[1])
	hy(t, "context", "grant", "3", "--actor", ids[0], "--role", "executor", "--data-dir", dirs[1])
	marker := filepath.Join(t.TempDir(), "ran")
	script := "echo ran >> " + marker + `; echo "x=1" >> "$HYPHAE_RESULT"`
	var j struct {
		Key       string            `json:"key"`
		ContextID uint64            `json:"context_id"`
		Status    string            `json:"status"`
		Result    map[string]string `json:"result"`
	}
	decode(t, hy(t, "job", "run", "--to", ids[1], "--context", "3", "--script", script, "--wait", "--json", "--data-dir", dirs[0]), &j)
	if j.Status != "finished" || j.Result["x"] != "1" {
		t.Fatalf("job across namespaces: %+v", j)
	}

	if err := lab.Cut(1); err != nil {
		t.Fatal(err)
	}
	eventually(t, 60*time.Second, "the runner's agent marked down after its link was cut", seen("down"))
	decode(t, hy(t, "job", "run", "--to", ids[1], "--context", "3", "--script", script, "--json", "--data-dir", dirs[0]), &j)
	if err := lab.Mend(1); err != nil {
		t.Fatal(err)
	}
	ctx := strconv.FormatUint(j.ContextID, 10)
	eventually(t, 120*time.Second, "the job sent during the cut to finish at home", func() bool {
		return strings.Contains(hy(t, "job", "status", ctx, j.Key, "--data-dir", dirs[0]), "finished")
	})
	ran, err := os.ReadFile(marker)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(ran), "ran"); n != 2 {
		t.Fatalf("the runner ran the two jobs %d times in all, want 2", n)
	}
}
