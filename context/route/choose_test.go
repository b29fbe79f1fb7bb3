package route

import (
	"testing"

	"github.com/hyphae-run/hyphae/context/model"
)

// choose routes only among registered runners: a peer that announces
// itself as an idle runner of the type, but has no record, is never
// picked, however loaded the registered ones are.
func TestChooseOnlyRegisteredRunners(t *testing.T) {
	const self, real, busy, stranger, gone, pyOnly = "self", "real", "busy", "stranger", "gone", "py"
	up := func(id string, load, capacity int64, types ...string) *model.Peer {
		return &model.Peer{PeerID: id, State: model.PeerUp, ScriptTypes: types, Load: load, Capacity: capacity}
	}
	peers := []*model.Peer{
		up(stranger, 0, 100, "sh", "bash", "python"),
		up(real, 4, 4, "sh"),
		up(busy, 9, 4, "sh"),
		up(pyOnly, 0, 4, "sh", "python"),
		{PeerID: gone, State: model.PeerDown, ScriptTypes: []string{"sh"}},
		up(self, 0, 4, "sh"),
	}
	rec := func(id uint64, pubkey string, types ...string) *model.Runner {
		return &model.Runner{ID: id, Pubkey: pubkey, ScriptTypes: types}
	}
	cases := []struct {
		name    string
		rs      []*model.Runner
		typ     string
		want    string
		waiting int
	}{
		{"no records: nothing, whoever announces", nil, "sh", "", 0},
		{"the least loaded registered runner", []*model.Runner{rec(1, busy), rec(2, real)}, "sh", real, 0},
		{"a record limited to other types is skipped", []*model.Runner{rec(1, pyOnly, "python"), rec(2, busy)}, "sh", busy, 0},
		{"a registered runner down waits", []*model.Runner{rec(1, gone)}, "sh", "", 1},
		{"one never heard of waits", []*model.Runner{rec(1, "unheard")}, "sh", "", 1},
		{"one up whose record sets no types is a candidate for any type", []*model.Runner{rec(1, real)}, "python", real, 0},
		{"one announcing the type comes before one that does not", []*model.Runner{rec(1, real), rec(2, pyOnly)}, "python", pyOnly, 0},
		{"one up whose record lists the type waits for it", []*model.Runner{rec(1, real, "python")}, "python", "", 1},
		{"records of this agent are left to its own runner", []*model.Runner{rec(1, self), {ID: 2, Pubkey: real, Local: true}}, "sh", "", 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := choose(c.rs, peers, c.typ, self)
			pick := ""
			if got.runner != nil {
				pick = got.runner.Pubkey
			} else if got.unannounced != nil {
				pick = got.unannounced.Pubkey
			}
			if pick != c.want || len(got.waiting) != c.waiting {
				t.Fatalf("choose = %q waiting %v; want %q, %d waiting", pick, got.waiting, c.want, c.waiting)
			}
		})
	}
}
