package testnet

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/hyphae-run/hyphae/testkit/need"
)

// Lab is a set of network namespaces joined by a bridge that lives in a
// namespace of its own, so the host's network is not touched. Host i has
// eth0 at 10.77.0.(i+1)/24 with multicast on and a multicast route, and
// lo up (Linux lo has no multicast flag: mDNS needs the veth).
type Lab struct {
	prefix string
	bridge string // namespace holding the bridge
	hosts  []string
}

// labs numbers the labs of this process, so that two of them (tests one
// after the other, a benchmark's runs) never share a name.
var labs atomic.Int64

func ipCmd(args ...string) error {
	out, err := exec.Command("ip", args...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("ip %s: %v: %s", strings.Join(args, " "), err, out)
	}
	return nil
}

// NewLab builds n namespaces on a bridge, removed at t's end. It skips t
// when this process is not root or cannot make namespaces.
func NewLab(t testing.TB, n int) *Lab {
	t.Helper()
	need.Root(t, "it runs its agents in network namespaces of its own so that mDNS stays off the host's interfaces (CI runs as root)")
	need.Tool(t, "ip", "iproute2")
	l := &Lab{prefix: fmt.Sprintf("hy%d.%d", os.Getpid()%100000, labs.Add(1))}
	l.bridge = l.prefix + "br"
	t.Cleanup(l.destroy)
	must := func(args ...string) {
		if err := ipCmd(args...); err != nil {
			t.Fatal(err)
		}
	}
	if err := ipCmd("netns", "add", l.bridge); err != nil {
		if strings.Contains(err.Error(), "not permitted") || strings.Contains(err.Error(), "ermission denied") {
			need.Missing(t, fmt.Sprintf("cannot create network namespaces here (root without CAP_SYS_ADMIN?): %v", err))
		}
		t.Fatal(err)
	}
	must("-n", l.bridge, "link", "add", "br0", "type", "bridge")
	must("-n", l.bridge, "link", "set", "br0", "up")
	for i := range n {
		h := fmt.Sprintf("%s-%d", l.prefix, i)
		l.hosts = append(l.hosts, h)
		must("netns", "add", h)
		must("-n", h, "link", "add", "eth0", "type", "veth", "peer", "name", fmt.Sprintf("p%d", i), "netns", l.bridge)
		must("-n", l.bridge, "link", "set", fmt.Sprintf("p%d", i), "master", "br0", "up")
		must("-n", h, "addr", "add", l.IP(i)+"/24", "dev", "eth0")
		must("-n", h, "link", "set", "eth0", "up", "multicast", "on")
		must("-n", h, "link", "set", "lo", "up")
		must("-n", h, "route", "add", "224.0.0.0/4", "dev", "eth0")
	}
	return l
}

// Host is the name of host i's namespace.
func (l *Lab) Host(i int) string { return l.hosts[i] }

// IP is host i's IPv4 address on the bridge.
func (l *Lab) IP(i int) string { return fmt.Sprintf("10.77.0.%d", i+1) }

// Cut takes host i's link down (at the bridge end); Mend brings it back.
func (l *Lab) Cut(i int) error {
	return ipCmd("-n", l.bridge, "link", "set", fmt.Sprintf("p%d", i), "down")
}

// Mend brings back the link Cut took down.
func (l *Lab) Mend(i int) error {
	return ipCmd("-n", l.bridge, "link", "set", fmt.Sprintf("p%d", i), "up")
}

// Exec is the command prefix that runs a program in host i's namespace.
func (l *Lab) Exec(i int) []string { return []string{"ip", "netns", "exec", l.hosts[i]} }

// IsNamespaced reports whether prefix (a command prefix such as Exec's)
// runs its program in a named network namespace.
func IsNamespaced(prefix []string) bool {
	return len(prefix) >= 4 && prefix[0] == "ip" && prefix[1] == "netns" && prefix[2] == "exec"
}

func (l *Lab) destroy() {
	for _, h := range l.hosts {
		_ = ipCmd("netns", "del", h)
	}
	_ = ipCmd("netns", "del", l.bridge)
}

// Command runs this test binary again in host i's namespace with args
// (-test.run, -test.bench, …) and EnvNetns set (InLab reports it there),
// plus env.
func (l *Lab) Command(i int, args []string, env ...string) *exec.Cmd {
	self, err := os.Executable()
	if err != nil {
		self = os.Args[0]
	}
	argv := append(append(l.Exec(i), self), args...)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(append(os.Environ(), EnvNetns+"="+l.hosts[i]), env...)
	return cmd
}

// RunPattern is the -test.run (or -test.bench) pattern that selects
// exactly the test or benchmark named name (t.Name(), with subtests).
func RunPattern(name string) string {
	parts := strings.Split(name, "/")
	for i, p := range parts {
		parts[i] = "^" + regexp.QuoteMeta(p) + "$"
	}
	return strings.Join(parts, "/")
}

// RunInLab runs the calling test in a Lab namespace. In the parent it
// builds a one-host Lab (or skips t without root), runs this test binary
// again there on t's test alone, logs what the child printed, fails t
// when the child failed (or skips it when the child skipped), and reports
// false: the caller returns. In the child — this process in a Lab
// namespace — it reports true: the caller goes on with the test body.
//
//	if !testnet.RunInLab(t) {
//		return
//	}
func RunInLab(t *testing.T, env ...string) bool {
	t.Helper()
	if _, ok := InLab(); ok {
		return true
	}
	l := NewLab(t, 1)
	out, err := l.Command(0, []string{"-test.run", RunPattern(t.Name()), "-test.v", "-test.count", "1"}, env...).CombinedOutput()
	l.report(t, t.Name(), out, err)
	return false
}

// report fails t when the child running the test name failed, skips it
// when the child skipped it, and logs what the child printed.
func (l *Lab) report(t *testing.T, name string, out []byte, err error) {
	t.Helper()
	t.Logf("in network namespace %s:\n%s", l.hosts[0], out)
	switch {
	case err != nil:
		t.Fatalf("%s in a network namespace: %v", name, err)
	case bytes.Contains(out, []byte("--- SKIP: "+name+" ")):
		t.Skipf("skipped in the network namespace (its output above says why)")
	case !bytes.Contains(out, []byte("--- PASS: "+name+" ")):
		t.Fatalf("%s did not run in the network namespace", name)
	}
}

// RunBenchInLab runs the calling benchmark b in host 0 of a new Lab with
// -test.benchtime b.N x (or skips b without root) and returns the
// metrics it reported, by unit ("p50-ms": 12). In the child it is not
// called: the benchmark checks InLab first.
func RunBenchInLab(b *testing.B, env ...string) map[string]float64 {
	b.Helper()
	l := NewLab(b, 1)
	out, err := l.Command(0, []string{"-test.run", "^$", "-test.bench", RunPattern(b.Name()),
		"-test.benchtime", strconv.Itoa(b.N) + "x", "-test.count", "1", "-test.cpu", "1"}, env...).CombinedOutput()
	if err != nil {
		b.Fatalf("%s in a network namespace: %v\n%s", b.Name(), err, out)
	}
	if bytes.Contains(out, []byte("--- SKIP: "+b.Name())) {
		b.Skipf("skipped in the network namespace:\n%s", out)
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 2 || f[0] != b.Name() { // -test.cpu 1: no -N suffix
			continue
		}
		m := map[string]float64{}
		for i := 2; i+1 < len(f); i += 2 {
			if v, err := strconv.ParseFloat(f[i], 64); err == nil {
				m[f[i+1]] = v
			}
		}
		return m
	}
	b.Fatalf("%s printed no result in the network namespace:\n%s", b.Name(), out)
	return nil
}
