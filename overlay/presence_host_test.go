package overlay

import (
	"crypto/rand"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/hyphae-run/hyphae/context/model"
)

// An agent's presence records carry its host name, which the others keep
// on its peer-table row (shown by `hyphae peers` and peer.list).
func TestPresenceCarriesHostName(t *testing.T) {
	want, err := os.Hostname()
	if err != nil || want == "" {
		t.Skipf("no host name here: %v", err)
	}
	a := startAgent(t, testConfig())
	cfg := testConfig()
	cfg.Bootstrap = []string{a.addr()}
	b := startAgent(t, cfg)
	waitFor(t, 30*time.Second, "A to see B's host name", func() bool {
		r := a.row(t, b.o.ID())
		return r != nil && model.PeerHost(r) == want
	})
}

// A record from an agent too old to announce a host name decodes as
// before, and leaves a host name learnt earlier in place; one from a
// newer agent that an old one reads has a field it ignores (JSON).
func TestPresenceWithoutHostStillDecodes(t *testing.T) {
	_, pub, _ := crypto.GenerateEd25519Key(rand.Reader)
	id, _ := peer.IDFromPublicKey(pub)
	old := `{"v":1,"id":"` + id.String() + `","addrs":[],"roles":["runner"],"types":["sh"],"cap":2,"load":0,"ver":"0.1","up":5,"seq":7}`
	r, err := parsePresence([]byte(old), id)
	if err != nil || r.Host != "" || r.Seq != 7 {
		t.Fatalf("an old agent's record: %+v, %v", r, err)
	}
	kept := model.Hash{model.ExtraHost: "box"}
	if got := r.withHost(kept); got[model.ExtraHost] != "box" {
		t.Fatalf("a record without a host name replaced the one known: %v", got)
	}
	r.Host = "other"
	if got := r.withHost(kept); got[model.ExtraHost] != "other" || kept[model.ExtraHost] != "box" {
		t.Fatalf("withHost = %v (the old hash now %v); want the new name, the old hash untouched", got, kept)
	}
	long := `{"v":1,"id":"` + id.String() + `","seq":1,"host":"` + strings.Repeat("h", maxStringLen+1) + `"}`
	if _, err := parsePresence([]byte(long), id); err == nil {
		t.Fatal("a host name over the string limit was accepted")
	}
}
