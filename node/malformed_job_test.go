package node_test

import (
	"testing"
	"time"

	"github.com/hyphae-run/hyphae/crypto/envelope"
)

// A job message from a peer granted a role in the target context whose
// job cannot be used (here: no script) is refused with a reply saying so
// and counted under its own reason, malformed_job, not as unauthorized:
// an operator reading the metrics tells a broken client from an intruder.
func TestMalformedJobCountedApart(t *testing.T) {
	t.Parallel()
	a := startAgent(t, agentOpts{})
	x := newImpostor(t, a.addr(t))
	grantExecutor(t, a, 1, x.id.PeerID().String())
	waitPeerUp(t, a, x.id.PeerID().String())

	rejected := func(reason string) int64 { return a.BusStats().Rejected[reason] }
	unauthorized := rejected("unauthorized")
	x.send(t, a.ID().PeerID(), envelope.TypeJob, 1, map[string]any{"ref": "1/message:1:1", "origin_ctx": 1,
		"origin_job": "job:1:1", "attempt": 1, "job": map[string]string{"script_type": "sh"}})
	eventually(t, 30*time.Second, "the malformed job refused", func() bool {
		return rejected("malformed_job") == 1 && x.received(envelope.TypeError) == 1
	})
	if n := rejected("unauthorized"); n != unauthorized {
		t.Fatalf("unauthorized went from %d to %d for a malformed job", unauthorized, n)
	}
}
