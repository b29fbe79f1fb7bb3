package node_test

import (
	"context"
	"strings"
	"testing"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/node/api/wire"
)

// A peer row kept raw (before presence strings were made plain, or by an
// older agent on the same store) is shown plain by peer.list, which
// `hyphae peers` and the dashboard read.
func TestPeerListShowsPlainStrings(t *testing.T) {
	t.Parallel()
	a := startAgent(t, agentOpts{})
	raw := &model.Peer{PeerID: "12D3KooWRawRowRawRowRawRowRawRowRawRowRaw", State: model.PeerDown, Version: "0.1\x1b]0;pwned\x07",
		Roles: []string{"runner\u202e"}, ScriptTypes: []string{"sh\x1b[31m"}, Extra: model.Hash{model.ExtraHost: "evil\x1b[2Jname"}}
	if err := a.Store().Registry.SavePeer(context.Background(), raw); err != nil {
		t.Fatal(err)
	}
	var ps []wire.PeerView
	a.call(t, "peer.list", nil, &ps)
	for _, p := range ps {
		if p.PeerID != raw.PeerID {
			continue
		}
		if p.Host != "evil[2Jname" || p.Version != "0.1]0;pwned" || strings.Join(p.Roles, ",") != "runner" || strings.Join(p.ScriptTypes, ",") != "sh[31m" {
			t.Fatalf("peer.list row %+v: want its strings without control bytes", p)
		}
		return
	}
	t.Fatalf("peer.list %+v: no row for %s", ps, raw.PeerID)
}
