package e2e

import (
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// sites is one start of the two sites: P runs the relay service on the
// internet; A (runner, home 0) and B (origin, home 1) know only P, by
// --bootstrap, and B may run jobs in A's context 3.
type sites struct {
	lab       *sitesLab
	transport string    // tcp or quic
	a, b      string    // data dirs
	aID, bID  string    // peer IDs
	procs     []*proc   // P, A, B
	start     time.Time // when A and B were started
}

// sitesTimes are what one start measured, from the start of A and B.
type sitesTimes struct {
	up, job, direct time.Duration // direct: 0 = no direct connection
}

// listenOn is the listen address of a transport, port 4001 everywhere.
func listenOn(transport string) string {
	if transport == "quic" {
		return "/ip4/0.0.0.0/udp/4001/quic-v1"
	}
	return "/ip4/0.0.0.0/tcp/4001"
}

// startSites builds the lab, starts P (a rendezvous runs before the home
// agents do), then A and B at the same moment.
func startSites(t testing.TB, transport string) *sites {
	t.Helper()
	s := &sites{lab: newSitesLab(t), transport: transport}
	p := newDataDir(t)
	s.a, s.b = newDataDir(t), newDataDir(t)
	s.aID, s.bID = idOf(t, s.a), idOf(t, s.b)
	listen := listenOn(transport)
	s.procs = append(s.procs, startRun(t, p, in(s.lab.public), "--api", "off", "--listen", listen, "--relay-service"))
	bootstrap := strings.Replace(listen, "0.0.0.0", publicIP, 1) + "/p2p/" + idOf(t, p)
	args := []string{"--api", "off", "--listen", listen, "--bootstrap", bootstrap}
	s.start = time.Now()
	s.procs = append(s.procs, launch(t, s.a, in(s.lab.home[0]), args...), launch(t, s.b, in(s.lab.home[1]), args...))
	t.Cleanup(func() { s.logOnFailure(t) })
	for i, dir := range []string{s.a, s.b} {
		eventually(t, 30*time.Second, "the API of agent "+dir, func() bool {
			s.procs[1+i].mustRun(t)
			_, _, err := hyTry("info", "--data-dir", dir)
			return err == nil
		})
	}
	hy(t, "context", "create", "--id", "3", "--data-dir", s.a)
	hy(t, "context", "grant", "3", "--actor", s.bID, "--role", "executor", "--data-dir", s.a)
	return s
}

// idOf is the peer ID of the agent in dir.
func idOf(t testing.TB, dir string) string {
	var id struct {
		PeerID string `json:"peer_id"`
	}
	decode(t, hy(t, "id", "--json", "--data-dir", dir), &id)
	return id.PeerID
}

// mustRun fails the test when the agent has exited.
func (p *proc) mustRun(t testing.TB) {
	select {
	case err := <-p.done:
		p.done <- err
		t.Fatalf("hyphae run exited: %v\n%s", err, p.log)
	default:
	}
}

// logOnFailure prints the tail of each agent's log when the test failed.
func (s *sites) logOnFailure(t testing.TB) {
	if !t.Failed() {
		return
	}
	for i, p := range s.procs {
		log := p.log.String()
		t.Logf("--- %s log (tail) ---\n%s", []string{"P", "A", "B"}[i], log[max(0, len(log)-6000):])
	}
}

// sitePeer is a row of `hyphae peers --json` with the connection kind.
type sitePeer struct {
	State string `json:"state"`
	Conn  string `json:"conn"`
}

// peerOf is dir's view of peer id (zero when unknown or not answering).
func peerOf(t testing.TB, dir, id string) sitePeer {
	out, _, err := hyTry("peers", "--json", "--data-dir", dir)
	if err != nil {
		return sitePeer{}
	}
	var ps []struct {
		PeerID string `json:"peer_id"`
		sitePeer
	}
	decode(t, out, &ps)
	for _, p := range ps {
		if p.PeerID == id {
			return p.sitePeer
		}
	}
	return sitePeer{}
}

// bothUp reports whether A and B see each other up.
func (s *sites) bothUp(t testing.TB) bool {
	return peerOf(t, s.a, s.bID).State == "up" && peerOf(t, s.b, s.aID).State == "up"
}

// direct reports whether A and B are connected directly (not through P).
func (s *sites) direct(t testing.TB) bool {
	return peerOf(t, s.a, s.bID).Conn == "direct" && peerOf(t, s.b, s.aID).Conn == "direct"
}

// job runs a job from B on A and checks its result.
func (s *sites) job(t testing.TB, n int) {
	t.Helper()
	var j struct {
		Status string            `json:"status"`
		Result map[string]string `json:"result"`
	}
	script := fmt.Sprintf(`echo "n=%d" >> "$HYPHAE_RESULT"`, n)
	decode(t, hy(t, "job", "run", "--to", s.aID, "--context", "3", "--script", script, "--wait", "--json", "--data-dir", s.b), &j)
	if j.Status != "finished" || j.Result["n"] != fmt.Sprint(n) {
		t.Fatalf("job %d from B on A: %+v", n, j)
	}
}

// measure waits for both up, runs the first job, and waits up to
// directWithin for a direct connection.
func (s *sites) measure(t testing.TB, directWithin time.Duration) sitesTimes {
	t.Helper()
	var m sitesTimes
	eventually(t, 60*time.Second, "A and B see each other up", func() bool { return s.bothUp(t) })
	m.up = time.Since(s.start)
	s.job(t, 1)
	m.job = time.Since(s.start)
	deadline := time.Now().Add(directWithin)
	for !s.direct(t) {
		if time.Now().After(deadline) {
			return m
		}
		time.Sleep(20 * time.Millisecond)
	}
	m.direct = time.Since(s.start)
	return m
}

// Two home labs behind NAT routers that let nothing in, and a public
// rendezvous both know by --bootstrap: each lists the other up, a job from
// B runs on A, hole punching gives them a direct connection, and the next
// job goes over it.
func TestSitesBehindNATPunchTCP(t *testing.T)  { testSitesPunch(t, "tcp") }
func TestSitesBehindNATPunchQUIC(t *testing.T) { testSitesPunch(t, "quic") }

func testSitesPunch(t *testing.T, transport string) {
	t.Parallel()
	s := startSites(t, transport)
	m := s.measure(t, 15*time.Second)
	if m.direct == 0 {
		t.Fatalf("no direct connection between the sites over %s (hole punching failed)", transport)
	}
	t.Logf("%s: both up %v, first job %v, direct %v after start", transport,
		m.up.Round(time.Millisecond), m.job.Round(time.Millisecond), m.direct.Round(time.Millisecond))
	s.job(t, 2)
	if !s.direct(t) {
		t.Fatalf("the second job left A and B without a direct connection: A sees %+v, B sees %+v",
			peerOf(t, s.a, s.bID), peerOf(t, s.b, s.aID))
	}
	if transport == "tcp" {
		s.lab.wantTCPBetweenRouters(t)
	}
}

// wantTCPBetweenRouters checks, outside the agents, that home 0 holds an
// established TCP connection to home 1's router: a punched hole.
func (l *sitesLab) wantTCPBetweenRouters(t testing.TB) {
	t.Helper()
	out, err := exec.Command("ip", "netns", "exec", l.home[0], "ss", "-Htn", "state", "established", "dst", "11.1.0.2").CombinedOutput()
	if err != nil {
		t.Fatalf("ss: %v: %s", err, out)
	}
	if strings.TrimSpace(string(out)) == "" {
		t.Fatal("home 0 holds no TCP connection to home 1's router")
	}
}
