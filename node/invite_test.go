package node_test

import (
	"strings"
	"testing"
	"time"

	"github.com/hyphae-run/hyphae/node/api/wire"
	"github.com/hyphae-run/hyphae/node/invite"
)

// Two agents that never met pair in two calls: invite.create on alice,
// invite.join with its code on bob. Bob then runs a job in alice's context
// by her name. The code is single use; a used, revoked, expired, forged or
// mistyped code is refused with its reason and changes nothing.
func TestInviteJoinThenRunByName(t *testing.T) {
	t.Parallel()
	alice := startAgent(t, agentOpts{})
	bob := startAgent(t, agentOpts{})
	alice.call(t, "context.create", map[string]any{"id": 1}, nil)

	code := createInvite(t, alice, map[string]any{"context": 1, "role": "executor", "runner": true})
	var joined wire.InviteJoinView
	bob.call(t, "invite.join", map[string]any{"code": code, "name": "alice"}, &joined)
	if joined.Peer != alice.peerID() || joined.Context != 1 || joined.Role != "executor" || joined.Runner == "" {
		t.Fatalf("join = %+v", joined)
	}
	var c wire.ContextView
	alice.call(t, "context.load", map[string]any{"id": 1}, &c)
	if len(c.Executors) != 1 {
		t.Fatalf("alice's context 1 after the join: %+v", c)
	}
	var rs []wire.RunnerView
	alice.call(t, "runner.list", map[string]any{"context": 1}, &rs)
	if len(rs) != 1 || rs[0].Pubkey != bob.peerID() {
		t.Fatalf("alice's runners of context 1: %+v", rs)
	}

	var j wire.JobView
	bob.call(t, "job.run", map[string]any{"to": "alice", "context": 1, "type": "sh",
		"script": `echo "on=alice" >> "$HYPHAE_RESULT"`, "wait": 60}, &j)
	if j.Status != "finished" || j.Result["on"] != "alice" {
		t.Fatalf("bob's job at alice by name: %+v", j)
	}

	refused(t, bob, code, "already used")
	alice.call(t, "context.load", map[string]any{"id": 1}, &c)
	if len(c.Executors) != 1 {
		t.Fatalf("a used code changed the grants: %+v", c)
	}

	revoked := createInvite(t, alice, map[string]any{"context": 1, "role": "reader"})
	rc, err := invite.Parse(revoked)
	if err != nil {
		t.Fatal(err)
	}
	alice.call(t, "invite.revoke", map[string]any{"id": rc.ID}, nil)
	refused(t, bob, revoked, "revoked")

	forged, err := invite.Parse(createInvite(t, alice, map[string]any{"context": 1, "role": "admin"}))
	if err != nil {
		t.Fatal(err)
	}
	forged.Secret[0] ^= 1
	refused(t, bob, forged.String(), "forged: the secret does not match")

	expired := createInvite(t, alice, map[string]any{"context": 1, "role": "admin", "expires": "1s"})
	time.Sleep(1100 * time.Millisecond)
	refused(t, bob, expired, "expired")

	mistyped := []byte(forged.String())
	mistyped[len(mistyped)-3] ^= 0x20 // a letter's case
	refused(t, bob, string(mistyped), "checksum")

	alice.call(t, "context.load", map[string]any{"id": 1}, &c)
	if len(c.Executors) != 1 || len(c.Admins) != 1 || len(c.Readers) != 0 {
		t.Fatalf("refused codes changed the grants: %+v", c)
	}
	states := map[string]int{}
	for _, v := range inviteList(t, alice) {
		states[v.State]++
	}
	if states["used"] != 1 || states["revoked"] != 1 || states["expired"] != 1 || states["open"] != 1 {
		t.Fatalf("invite list states %v, want one each of used, revoked, expired, open", states)
	}
}

func createInvite(t *testing.T, a *agent, p map[string]any) string {
	t.Helper()
	var v wire.InviteView
	a.call(t, "invite.create", p, &v)
	if !strings.HasPrefix(v.Code, invite.Prefix) || v.State != "open" {
		t.Fatalf("invite.create = %+v", v)
	}
	return v.Code
}

func inviteList(t *testing.T, a *agent) []wire.InviteView {
	t.Helper()
	var vs []wire.InviteView
	a.call(t, "invite.list", nil, &vs)
	return vs
}

// refused checks that joining with code fails saying why.
func refused(t *testing.T, bob *agent, code, why string) {
	t.Helper()
	err := bob.client.Call(t.Context(), "invite.join", map[string]any{"code": code}, nil)
	if err == nil || !strings.Contains(err.Error(), why) {
		t.Fatalf("join with a bad code: %v, want it refused saying %q", err, why)
	}
}
