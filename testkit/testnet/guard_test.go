package testnet

import (
	"fmt"
	"strings"
	"testing"
)

// fakeTB records Fatalf instead of ending the test.
type fakeTB struct{ fatal string }

func (f *fakeTB) Helper() {}
func (f *fakeTB) Fatalf(format string, args ...any) {
	if f.fatal == "" {
		f.fatal = fmt.Sprintf(format, args...)
	}
}

// On the host, Guard fails an agent with mDNS or port mapping on, and
// lets one with both off be.
func TestGuardFailsAHostAgentWithMDNSOrPortMapping(t *testing.T) {
	if ns, ok := InLab(); ok {
		t.Skipf("runs on the host, not in namespace %s", ns)
	}
	for _, c := range []struct {
		e    Exposure
		fail bool
	}{
		{Exposure{}, false},
		{Exposure{MDNS: true}, true},
		{Exposure{PortMap: true}, true},
		{Exposure{MDNS: true, PortMap: true}, true},
	} {
		f := &fakeTB{}
		Guard(f, "agent x", c.e)
		if (f.fatal != "") != c.fail {
			t.Errorf("%v: failed %q, want a failure: %v", c.e, f.fatal, c.fail)
		}
		if c.fail && (!strings.Contains(f.fatal, "agent x") || !strings.Contains(f.fatal, c.e.String())) {
			t.Errorf("%v: %q does not say who and what", c.e, f.fatal)
		}
	}
}

// The environment alone does not make a Lab: a process that inherits
// EnvNetns but runs on the host is still guarded.
func TestGuardNotFooledByTheEnvironment(t *testing.T) {
	if _, ok := InLab(); ok {
		t.Skip("runs on the host")
	}
	t.Setenv(EnvNetns, "hy-no-such-namespace")
	if _, ok := InLab(); ok {
		t.Fatal("InLab true on the host")
	}
	f := &fakeTB{}
	Guard(f, "agent", Exposure{MDNS: true})
	if f.fatal == "" {
		t.Fatal("an agent with mDNS on passed the guard on the host")
	}
}

// In a Lab namespace mDNS and port mapping are allowed: nothing reaches
// the host's interfaces.
func TestGuardLetsALabAgentBe(t *testing.T) {
	if !RunInLab(t) {
		return
	}
	if _, ok := InLab(); !ok {
		t.Fatal("RunInLab's child is not in its namespace")
	}
	f := &fakeTB{}
	Guard(f, "agent", Exposure{MDNS: true, PortMap: true})
	if f.fatal != "" {
		t.Fatalf("guard failed in a Lab: %s", f.fatal)
	}
}

func TestGuardInfo(t *testing.T) {
	if _, ok := InLab(); ok {
		t.Skip("runs on the host")
	}
	for in, fail := range map[string]bool{
		`{"peer_id":"x","mdns":false,"nat_port_map":false}`: false,
		`{"peer_id":"x"}`:                     false, // a binary that predates the keys
		`{"peer_id":"x","mdns":true}`:         true,
		`{"peer_id":"x","nat_port_map":true}`: true,
		`not json`:                            true,
	} {
		f := &fakeTB{}
		GuardInfo(f, "agent", []byte(in))
		if (f.fatal != "") != fail {
			t.Errorf("%s: failed %q, want a failure: %v", in, f.fatal, fail)
		}
	}
}

func TestRunPattern(t *testing.T) {
	if got := RunPattern("BenchmarkTimeToFirstPeer/mdns"); got != "^BenchmarkTimeToFirstPeer$/^mdns$" {
		t.Errorf("got %q", got)
	}
	if got := RunPattern("TestA.b"); got != `^TestA\.b$` {
		t.Errorf("got %q", got)
	}
}
