package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/hyphae-run/hyphae/testkit/need"
	"github.com/hyphae-run/hyphae/testkit/testnet"
)

// sitesLab is two home LANs, each behind its own NAT router, and one
// public host, all in network namespaces of their own:
//
//	home0 192.168.1.2 ─ router0 (MASQUERADE, 11.1.0.1) ─┐
//	                                                     ├─ internet 11.1.0.0/24 ─ public 11.1.0.10
//	home1 192.168.2.2 ─ router1 (MASQUERADE, 11.1.0.2) ─┘
//
// A router lets out what its LAN sends and lets back in only the replies
// (conntrack ESTABLISHED): nothing is forwarded in, and what comes in
// unasked is dropped without an answer. The internet drops
// what is not for one of its hosts, as the real one drops private
// addresses, so a dial from one LAN to the other's private address hangs
// until its timeout, as it would across real sites. libp2p takes
// documentation ranges for not public, so the internet's addresses are
// ordinary-looking; they exist only inside these namespaces.
type sitesLab struct {
	prefix string
	inet   string    // the internet: a bridge
	public string    // the public host P
	router [2]string // the NAT routers
	home   [2]string // one host on each LAN
}

// sitesSeq tells the labs of one test process apart.
var sitesSeq atomic.Int32

// publicIP is P's address on the simulated internet.
const publicIP = "11.1.0.10"

// needSites skips unless namespaces, iproute2 and iptables can be used.
func needSites(t testing.TB) {
	t.Helper()
	need.Root(t, "two-site NAT test needs root to create network namespaces (CI runs as root)")
	pkg := map[string]string{"ip": "iproute2", "iptables": "iptables"}
	for _, tool := range []string{"ip", "iptables"} {
		need.Tool(t, tool, pkg[tool])
	}
}

func newSitesLab(t testing.TB) *sitesLab {
	t.Helper()
	needSites(t)
	p := fmt.Sprintf("hs%d-%d", os.Getpid()%100000, sitesSeq.Add(1))
	l := &sitesLab{prefix: p, inet: p + "-net", public: p + "-pub",
		router: [2]string{p + "-r0", p + "-r1"}, home: [2]string{p + "-h0", p + "-h1"}}
	t.Cleanup(l.destroy)
	if err := ipCmd("netns", "add", l.inet); err != nil {
		if strings.Contains(err.Error(), "not permitted") || strings.Contains(err.Error(), "ermission denied") {
			need.Missing(t, fmt.Sprintf("cannot create network namespaces here (root without CAP_SYS_ADMIN?): %v", err))
		}
		t.Fatal(err)
	}
	for _, step := range [][]string{l.internet(), l.publicHost()} {
		l.run(t, step)
	}
	for i := range 2 {
		l.run(t, l.site(i))
	}
	return l
}

// run runs lines of the form "ns: command ..." ("" = the host namespace).
func (l *sitesLab) run(t testing.TB, lines []string) {
	t.Helper()
	for _, line := range lines {
		ns, cmd, _ := strings.Cut(line, ": ")
		argv := strings.Fields(cmd)
		if ns != "" {
			argv = append([]string{"ip", "netns", "exec", ns}, argv...)
		}
		if out, err := exec.Command(argv[0], argv[1:]...).CombinedOutput(); err != nil {
			t.Fatalf("%s: %v: %s", strings.Join(argv, " "), err, out)
		}
	}
}

// internet is a bridge with the address the routers and P route through;
// it forwards nothing, so packets for other addresses are dropped.
func (l *sitesLab) internet() []string {
	n := l.inet
	return []string{
		n + ": ip link add br0 type bridge", n + ": ip link set br0 up", n + ": ip link set lo up",
		n + ": ip addr add 11.1.0.254/24 dev br0", n + ": sysctl -qw net.ipv4.ip_forward=0",
	}
}

// plug connects ns to the internet with a link named dev there.
func (l *sitesLab) plug(ns, port, dev, addr string) []string {
	return []string{
		": ip netns add " + ns,
		l.inet + ": ip link add " + port + " type veth peer name " + dev + " netns " + ns,
		l.inet + ": ip link set " + port + " master br0 up",
		ns + ": ip addr add " + addr + "/24 dev " + dev, ns + ": ip link set " + dev + " up",
		ns + ": ip link set lo up", ns + ": ip route add default via 11.1.0.254",
	}
}

func (l *sitesLab) publicHost() []string { return l.plug(l.public, "pub", "eth0", publicIP) }

// site is router i with its LAN and the home host on it.
func (l *sitesLab) site(i int) []string {
	r, h := l.router[i], l.home[i]
	lan := fmt.Sprintf("192.168.%d.", i+1)
	out := l.plug(r, fmt.Sprintf("r%d", i), "wan", fmt.Sprintf("11.1.0.%d", i+1))
	return append(out,
		": ip netns add "+h,
		r+": ip link add lan type veth peer name eth0 netns "+h,
		r+": ip addr add "+lan+"1/24 dev lan", r+": ip link set lan up",
		h+": ip addr add "+lan+"2/24 dev eth0", h+": ip link set eth0 up", h+": ip link set lo up",
		h+": ip route add default via "+lan+"1",
		r+": sysctl -qw net.ipv4.ip_forward=1",
		r+": iptables -t nat -A POSTROUTING -o wan -j MASQUERADE",
		r+": iptables -P FORWARD DROP",
		r+": iptables -A FORWARD -i lan -o wan -j ACCEPT",
		r+": iptables -A FORWARD -i wan -o lan -m conntrack --ctstate ESTABLISHED,RELATED -j ACCEPT",
		// Unsolicited packets for the router itself are dropped, not
		// answered with a reset, as home routers do.
		r+": iptables -A INPUT -i wan -m conntrack --ctstate ESTABLISHED,RELATED -j ACCEPT",
		r+": iptables -A INPUT -i wan -j DROP",
	)
}

func (l *sitesLab) destroy() {
	for _, ns := range []string{l.home[0], l.home[1], l.router[0], l.router[1], l.public, l.inet} {
		_ = ipCmd("netns", "del", ns)
	}
}

// in is the prefix that runs a command in namespace ns.
func in(ns string) []string { return []string{"ip", "netns", "exec", ns} }

// launch starts `hyphae run` without waiting for its API (two agents
// start at the same moment); it is killed at test end.
func launch(t testing.TB, dir string, prefix []string, args ...string) *proc {
	t.Helper()
	if !testnet.IsNamespaced(prefix) {
		args = testnet.HostRunArgs(args...)
	}
	argv := append(append(append([]string{}, prefix...), bin, "run", "--data-dir", dir), args...)
	cmd := exec.Command(argv[0], argv[1:]...)
	p := &proc{cmd: cmd, dir: dir, log: &syncBuf{}, done: make(chan error, 1)}
	cmd.Stdout, cmd.Stderr = p.log, p.log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if lv := os.Getenv("HYPHAE_TEST_GOLOG"); lv != "" { // e.g. p2p-holepunch=debug,autorelay=debug
		cmd.Env = append(os.Environ(), "GOLOG_LOG_LEVEL="+lv)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.done <- cmd.Wait() }()
	t.Cleanup(p.kill)
	return p
}
