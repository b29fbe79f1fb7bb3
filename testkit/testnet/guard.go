package testnet

import (
	"encoding/json"
	"fmt"
	"os"
)

// OffFlags are the `hyphae run` flags every agent a test starts on the
// host gets: no mDNS, no UPnP / NAT-PMP port mapping.
var OffFlags = []string{"--no-mdns", "--no-nat-portmap"}

// HostRunArgs returns args (of `hyphae run`) with OffFlags after them, so
// that no argument of a test turns either back on.
func HostRunArgs(args ...string) []string {
	return append(append([]string{}, args...), OffFlags...)
}

// Exposure says what an agent does on the networks around the machine:
// mDNS, port mapping. It mirrors overlay.Exposure (this package imports no
// agent code, so that the overlay's own tests can use it).
type Exposure struct {
	MDNS    bool
	PortMap bool
}

func (e Exposure) String() string {
	return fmt.Sprintf("mdns %s, port mapping %s", onOff(e.MDNS), onOff(e.PortMap))
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

// TB is the part of testing.TB Guard uses.
type TB interface {
	Helper()
	Fatalf(format string, args ...any)
}

// Guard fails t when who — an agent the suite starts, by its config or by
// what its overlay reports running — has mDNS or port mapping on while
// this process runs on the host, not in a Lab namespace.
func Guard(t TB, who string, e Exposure) {
	t.Helper()
	if !e.MDNS && !e.PortMap {
		return
	}
	if _, ok := InLab(); ok {
		return
	}
	t.Fatalf("%s: %v, and this is the host: an agent a test starts outside a network namespace of its own must have "+
		"mDNS and port mapping off (testnet.OffFlags; mDNS tests run in a testnet.Lab)", who, e)
}

// InfoExposure reads what `hyphae info --json` (node.info) reports
// running: its mdns and nat_port_map keys. A binary that predates them
// reports neither, and reads as both off.
func InfoExposure(infoJSON []byte) (Exposure, error) {
	var v struct {
		MDNS       bool `json:"mdns"`
		NATPortMap bool `json:"nat_port_map"`
	}
	if err := json.Unmarshal(infoJSON, &v); err != nil {
		return Exposure{}, fmt.Errorf("node.info: %w", err)
	}
	return Exposure{MDNS: v.MDNS, PortMap: v.NATPortMap}, nil
}

// GuardInfo is Guard on what `hyphae info --json` of a binary agent
// reports running (infoJSON; it fails t when that does not parse).
func GuardInfo(t TB, who string, infoJSON []byte) {
	t.Helper()
	e, err := InfoExposure(infoJSON)
	if err != nil {
		t.Fatalf("%s: %v: %q", who, err, infoJSON)
	}
	Guard(t, who, e)
}

// EnvNetns names the Lab namespace a re-executed test binary runs in.
const EnvNetns = "HYPHAE_TEST_NETNS"

// InLab reports the Lab namespace this process runs in: EnvNetns names
// it, and this process's network namespace is that one (the environment
// alone is not enough: a child started without `ip netns exec` inherits
// it).
func InLab() (string, bool) {
	ns := os.Getenv(EnvNetns)
	if ns == "" {
		return "", false
	}
	self, err1 := os.Stat("/proc/self/ns/net")
	named, err2 := os.Stat("/run/netns/" + ns)
	return ns, err1 == nil && err2 == nil && os.SameFile(self, named)
}
