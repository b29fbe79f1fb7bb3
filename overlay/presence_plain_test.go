package overlay

import (
	"context"
	"crypto/rand"
	"slices"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p"
	"github.com/libp2p/go-libp2p-pubsub"
	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/hyphae-run/hyphae/context/model"
)

// A stranger's presence strings lose their control bytes, C1 controls and
// bidi overrides when the record is decoded: an ESC sequence in a host
// name would otherwise reach `hyphae peers` and clear the terminal.
func TestPresenceStringsArePlain(t *testing.T) {
	_, pub, _ := crypto.GenerateEd25519Key(rand.Reader)
	id, _ := peer.IDFromPublicKey(pub)
	data := `{"v":1,"id":"` + id.String() + `","seq":1,"host":"evil\u001b[2Jname","ver":"1.0\u009b31m\u007f",` +
		`"roles":["runner\u202e"],"types":["sh\u0007"],"addrs":["/ip4/127.0.0.1/tcp/1"]}`
	r, err := parsePresence([]byte(data), id)
	if err != nil {
		t.Fatal(err)
	}
	if r.Host != "evil[2Jname" || r.Ver != "1.031m" || !slices.Equal(r.Roles, []string{"runner"}) || !slices.Equal(r.Types, []string{"sh"}) {
		t.Fatalf("decoded host %q ver %q roles %q types %q; want them without control bytes", r.Host, r.Ver, r.Roles, r.Types)
	}
	if got := r.withHost(nil)[model.ExtraHost]; got != "evil[2Jname" {
		t.Fatalf("kept host %q", got)
	}
	only := `{"v":1,"id":"` + id.String() + `","seq":1,"roles":["\u001b\u0007"]}`
	if _, err := parsePresence([]byte(only), id); err == nil {
		t.Fatal("a role of control bytes alone was accepted (as an empty role)")
	}
}

// Through the agent: a record published on the presence topic by a bare
// gossipsub host lands in the peer table with the host name plain.
func TestPresenceHostPlainInPeerTable(t *testing.T) {
	a := startAgent(t, testConfig())
	h, err := libp2p.New(libp2p.ListenAddrStrings("/ip4/127.0.0.1/tcp/0"))
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ps, err := pubsub.NewGossipSub(ctx, h)
	if err != nil {
		t.Fatal(err)
	}
	topic, err := ps.Join(PresenceTopic)
	if err != nil {
		t.Fatal(err)
	}
	info, _ := peer.AddrInfoFromString(a.addr())
	if err := h.Connect(ctx, *info); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, "A is a presence topic peer", func() bool { return isTopicPeer(topic, a.o.ID()) })
	rec := `{"v":1,"id":"` + h.ID().String() + `","seq":1,"host":"evil\u001b[2Jname","ver":"0.1\u001b]0;pwned\u0007",` +
		`"types":["sh"],"addrs":["/ip4/127.0.0.1/tcp/1"]}`
	if err := topic.Publish(ctx, []byte(rec)); err != nil {
		t.Fatal(err)
	}
	var row *model.Peer
	waitFor(t, 10*time.Second, "A keeps the stranger's row", func() bool { row = a.row(t, h.ID()); return row != nil })
	if host := model.PeerHost(row); host != "evil[2Jname" || row.Version != "0.1]0;pwned" {
		t.Fatalf("peer row host %q version %q; want them without control bytes", host, row.Version)
	}
}
