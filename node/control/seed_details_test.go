package control

import (
	"slices"
	"testing"

	"github.com/hyphae-run/hyphae/context/model"
)

// Seed 000's runner type is kept as "type" and, when no script_types were
// given, becomes them; a type outside v|python|osis|rust is refused.
func TestSeedRunnerType(t *testing.T) {
	r := &model.Runner{}
	if err := seedRunnerType(r, "osis"); err != nil || r.Extra["type"] != "osis" || !slices.Equal(r.ScriptTypes, []string{"osis"}) {
		t.Fatalf("osis: %v %+v", err, r)
	}
	r = &model.Runner{ScriptTypes: []string{"sh"}}
	if err := seedRunnerType(r, "v"); err != nil || !slices.Equal(r.ScriptTypes, []string{"sh"}) {
		t.Fatalf("v beside script_types [sh]: %v %+v", err, r)
	}
	if err := seedRunnerType(&model.Runner{}, "cobol"); err == nil {
		t.Fatal("type cobol taken")
	}
}

// An actor given address [] is marked so, and survives the hash round
// trip; one given none, or some, is not.
func TestMarkNoAddress(t *testing.T) {
	for _, c := range []struct {
		given  []string
		marked bool
	}{{nil, false}, {[]string{}, true}, {[]string{"/ip4/10.0.0.1/tcp/1"}, false}} {
		a := &model.Actor{ID: 1, Pubkey: "p", Address: c.given}
		markNoAddress(a, c.given)
		back, err := model.ActorFromHash("actor:1", a.ToHash())
		if err != nil {
			t.Fatal(err)
		}
		if got := back.Extra[addressNone] != ""; got != c.marked {
			t.Errorf("address %v: marked %v, want %v", c.given, got, c.marked)
		}
	}
}
