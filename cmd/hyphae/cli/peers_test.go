package cli

import (
	"bytes"
	"regexp"
	"testing"
	"time"

	"github.com/hyphae-run/hyphae/node/api/wire"
)

// peers prints a table under a header: short peer IDs, host names, this
// agent's circuit breaker for each, the connection (direct/relayed),
// roles; a peer gone for longer than --hide-after is left out unless
// --all.
func TestPeersTable(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	up := wire.PeerView{PeerID: "12D3KooWAbCdEfGhIjKlMnOpQrStUvWxYz123456", State: "up", Roles: []string{"runner"},
		ScriptTypes: []string{"sh"}, Load: 1, Capacity: 4, LastSeen: now.Unix(), FoundVia: "mdns", Conn: "relayed", Version: "0.1.0",
		Host: "build-box", Breaker: &wire.BreakerView{State: "closed"}}
	old := wire.PeerView{PeerID: "12D3KooWGoneGoneGoneGoneGoneGoneGone99999", State: "down", LastSeen: now.Add(-48 * time.Hour).Unix()}
	shown, hidden := recentPeers([]wire.PeerView{up, old}, 24*time.Hour, false, now)
	if len(shown) != 1 || hidden != 1 {
		t.Fatalf("recentPeers kept %d, hid %d; want 1 and 1", len(shown), hidden)
	}
	if all, hid := recentPeers([]wire.PeerView{up, old}, 24*time.Hour, true, now); len(all) != 2 || hid != 0 {
		t.Fatalf("--all kept %d", len(all))
	}
	var b bytes.Buffer
	printPeerTable(&b, shown, false)
	if !regexp.MustCompile(`^PEER +HOST +STATE +BREAKER +CONN +ROLES +TYPES +LOAD +SEEN +VIA +VERSION\n12D3KooWAbCd…123456 +build-box +up +closed +relayed +runner +sh +1/4 +\S+ ago +mdns +0\.1\.0\n$`).MatchString(b.String()) {
		t.Fatalf("peers table:\n%s", b.String())
	}
}

// BREAKER says how long an open breaker has left, and "-" for a peer row
// without one.
func TestBreakerCell(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	for _, c := range []struct {
		b    *wire.BreakerView
		want string
	}{
		{nil, "-"},
		{&wire.BreakerView{State: "closed"}, "closed"},
		{&wire.BreakerView{State: "open", Until: now.Add(12 * time.Second).Unix()}, "open 12s"},
		{&wire.BreakerView{State: "half-open"}, "half-open"},
	} {
		if got := breakerCell(c.b, now); got != c.want {
			t.Errorf("breakerCell(%+v) = %q, want %q", c.b, got, c.want)
		}
	}
}
