package e2e

import (
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hyphae-run/hyphae/testkit/need"
)

// loNetns numbers the loopback-only namespaces of this process.
var loNetns atomic.Int64

// newLoopbackNetns makes a network namespace with only lo, up (a
// container's network, or a machine off every LAN), removed at t's end,
// and returns the prefix that runs a program in it. It skips t without
// root or iproute2. Nothing sent in it leaves it: mDNS may be on there.
func newLoopbackNetns(t *testing.T) []string {
	t.Helper()
	need.Root(t, "it runs the agent in a network namespace of its own (CI runs as root)")
	need.Tool(t, "ip", "iproute2")
	ns := fmt.Sprintf("hy%d.lo%d", os.Getpid()%100000, loNetns.Add(1))
	if err := ipCmd("netns", "add", ns); err != nil {
		if strings.Contains(err.Error(), "not permitted") || strings.Contains(err.Error(), "ermission denied") {
			need.Missing(t, fmt.Sprintf("cannot create network namespaces here: %v", err))
		}
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ipCmd("netns", "del", ns) })
	if err := ipCmd("-n", ns, "link", "set", "lo", "up"); err != nil {
		t.Fatal(err)
	}
	// An `ip netns exec` prefix: startRun leaves mDNS as it is (testnet.IsNamespaced).
	return []string{"ip", "netns", "exec", ns}
}

// On a machine whose only interface is loopback, `hyphae run` with mDNS
// left on (the default) starts without it, warns once why and what to do
// (--bootstrap, --no-mdns), and `hyphae info` says mDNS is off and why.
func TestRunStartsWithoutMDNSOnLoopbackOnly(t *testing.T) {
	t.Parallel()
	prefix := newLoopbackNetns(t)
	dir := newDataDir(t)
	p := startRun(t, dir, prefix) // no --no-mdns: mDNS as by default
	var info struct {
		MDNS    bool   `json:"mdns"`
		MDNSOff string `json:"mdns_off"`
	}
	decode(t, hy(t, "info", "--json", "--data-dir", dir), &info)
	if info.MDNS || !strings.Contains(info.MDNSOff, "multicast") {
		t.Errorf("node.info mdns %v, mdns_off %q; want off, saying no interface can multicast", info.MDNS, info.MDNSOff)
	}
	text := hy(t, "info", "--data-dir", dir)
	if !strings.Contains(text, "mDNS") || !strings.Contains(text, "off: no network interface can multicast") {
		t.Errorf("hyphae info does not say mDNS is off and why:\n%s", text)
	}
	time.Sleep(300 * time.Millisecond) // let a second warning, if any, reach the log
	p.kill()
	log := p.log.String()
	const warn = "mDNS is off: no network interface can multicast"
	if n := strings.Count(log, warn); n != 1 {
		t.Fatalf("the log has %d warnings %q, want one:\n%s", n, warn, log)
	}
	line := log[strings.Index(log, warn):]
	line, _, _ = strings.Cut(line, "\n")
	for _, want := range []string{"--bootstrap", "--no-mdns"} {
		if !strings.Contains(line, want) {
			t.Errorf("the warning does not name %s: %s", want, line)
		}
	}
	if strings.Contains(log, "no supported interface") {
		t.Errorf("the log still has zeroconf's error:\n%s", log)
	}
}
