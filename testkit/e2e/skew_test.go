package e2e

import (
	"strings"
	"testing"
	"time"
)

// peerVersion is the version agent a shows for peer in `peers --json`
// once it sees it up ("" until then).
func (a *binAgent) peerVersion(t *testing.T, peer string) string {
	t.Helper()
	out, _, err := a.try("peers", "--json")
	if err != nil {
		return ""
	}
	var ps []struct {
		PeerID  string `json:"peer_id"`
		State   string `json:"state"`
		Version string `json:"version"`
	}
	decode(t, out, &ps)
	for _, p := range ps {
		if p.PeerID == peer && p.State == "up" {
			return p.Version
		}
	}
	return ""
}

// An agent of the previous build and one of this build on the same bus:
// each sees the other up with the other's version (presence carries it),
// and a job sent with `job run --to` goes each way, runs there and brings
// its output home.
func TestVersionSkewJobsBothWays(t *testing.T) {
	t.Parallel()
	oldBin := oldBinary(t)
	cur := newBinAgent(t, "current", bin)
	old := newBinAgent(t, "previous", oldBin, "--bootstrap", cur.addr(t))
	for _, p := range []struct{ host, guest *binAgent }{{cur, old}, {old, cur}} {
		p.host.hy(t, "context", "create", "--id", "1")
		p.host.hy(t, "context", "grant", "1", "--actor", p.guest.peer, "--role", "executor")
	}
	var curVersion struct {
		Version string `json:"version"`
	}
	decode(t, cur.hy(t, "info", "--json"), &curVersion)
	if curVersion.Version == "" || curVersion.Version == oldVersion {
		t.Fatalf("this build reports version %q; want one that differs from the previous build's %q", curVersion.Version, oldVersion)
	}
	eventually(t, 30*time.Second, "each agent to see the other up with its version", func() bool {
		return cur.peerVersion(t, old.peer) == oldVersion && old.peerVersion(t, cur.peer) == curVersion.Version
	})

	for _, p := range []struct{ from, to *binAgent }{{cur, old}, {old, cur}} {
		out := p.from.hy(t, "job", "run", "--to", p.to.peer, "--context", "1", "--wait",
			"--script", "echo ran on "+p.to.name)
		if !strings.Contains(out, "finished") || !strings.Contains(out, "ran on "+p.to.name) {
			t.Fatalf("job run --to from %s to %s printed:\n%s", p.from.name, p.to.name, out)
		}
	}
}
