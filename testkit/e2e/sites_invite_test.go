package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/hyphae-run/hyphae/node/invite"
)

// Two machines paired in two commands across two NATs: alice (home 0)
// and bob (home 1) know only the public rendezvous P by --bootstrap and
// have no context in common. `hyphae invite` on alice prints a code that
// reaches her through P's relay; `hyphae join` on bob admits him, and his
// job runs in her context by her name.
func TestInviteJoinAcrossNATs(t *testing.T) {
	t.Parallel()
	s := &sites{lab: newSitesLab(t), transport: "tcp"}
	p := newDataDir(t)
	s.a, s.b = newDataDir(t), newDataDir(t)
	s.aID, s.bID = idOf(t, s.a), idOf(t, s.b)
	listen := listenOn("tcp")
	s.procs = append(s.procs, startRun(t, p, in(s.lab.public), "--api", "off", "--listen", listen, "--relay-service"))
	bootstrap := strings.Replace(listen, "0.0.0.0", publicIP, 1) + "/p2p/" + idOf(t, p)
	args := []string{"--api", "off", "--listen", listen, "--bootstrap", bootstrap}
	t.Cleanup(func() { s.logOnFailure(t) })
	s.procs = append(s.procs, startRun(t, s.a, in(s.lab.home[0]), args...), startRun(t, s.b, in(s.lab.home[1]), args...))
	hy(t, "context", "create", "--id", "3", "--data-dir", s.a)

	eventually(t, 60*time.Second, "alice listening through P's relay", func() bool {
		var info struct {
			Listen []string `json:"listen_addrs"`
		}
		decode(t, hy(t, "info", "--json", "--data-dir", s.a), &info)
		return strings.Contains(strings.Join(info.Listen, " "), "/p2p-circuit")
	})
	code := inviteCode(t, s.a, "-c", "3", "--role", "executor", "--expires", "10m")
	if c, err := invite.Parse(code); err != nil || !strings.Contains(strings.Join(c.Addrs, " "), "/p2p-circuit") {
		t.Fatalf("the code (%v) carries %v; want alice's relayed address", err, c)
	}
	if out := hy(t, "join", code, "--name", "alice", "--data-dir", s.b); !strings.Contains(out, "executor in context 3") {
		t.Fatalf("join across the NATs said %q", out)
	}
	if st, res := jobAt(t, s.b, "3", "alice", "n=7"); st != "finished" || res["n"] != "7" {
		t.Fatalf("bob's job at alice across the NATs: %s %v", st, res)
	}
}
