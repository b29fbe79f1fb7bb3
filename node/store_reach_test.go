package node_test

import (
	"strings"
	"testing"
)

// A store on a loopback TCP port without a password is reachable from a
// contained job, which keeps the network: the agent says so at start,
// and says nothing for a store on a unix socket.
func TestReachableStoreIsWarnedOf(t *testing.T) {
	t.Parallel()
	const want = "contained jobs keep the network and can reach this Redis on loopback"
	log, lines := newCapturedLog()
	startAgent(t, agentOpts{contained: true, log: log})
	if !strings.Contains(lines.text(), want) {
		t.Fatalf("an agent on a password-less loopback Redis did not warn %q:\n%s", want, lines.text())
	}
	log, lines = newCapturedLog()
	startAgent(t, agentOpts{contained: true, unixRedis: true, log: log})
	if strings.Contains(lines.text(), want) {
		t.Fatalf("an agent on a unix-socket Redis warned of a reachable store:\n%s", lines.text())
	}
}
