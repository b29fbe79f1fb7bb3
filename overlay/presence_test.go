package overlay

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p"
	"github.com/libp2p/go-libp2p-pubsub"
	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/peer"
)

// Test (5): malformed, forged and oversized presence records, published
// by a bare gossipsub host connected to the agent, are rejected and the
// sender's score drops; a valid record from it is accepted.
func TestBadPresenceIsRejectedAndScored(t *testing.T) {
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

	publish := func(data []byte) {
		t.Helper()
		if err := topic.Publish(ctx, data); err != nil {
			t.Fatal(err)
		}
	}
	publish(rawRecord(t, h.ID().String(), 1, ""))
	waitFor(t, 10*time.Second, "A accepts a valid record", func() bool { return a.seesUp(t, h.ID()) })
	if s, _ := a.o.PeerScore(h.ID()); s < 0 {
		t.Fatalf("score %v before any invalid message", s)
	}

	_, forgedPub, _ := crypto.GenerateEd25519Key(rand.Reader)
	forged, _ := peer.IDFromPublicKey(forgedPub)
	publish([]byte("{not json"))
	publish(rawRecord(t, forged.String(), 2, ""))                                     // id is not the author
	publish(rawRecord(t, h.ID().String(), 3, strings.Repeat("x", MaxPresenceSize)))   // oversized
	publish([]byte(`{"v":1,"id":"` + h.ID().String() + `","seq":"four","addrs":[]}`)) // wrong type
	waitFor(t, 15*time.Second, "the sender's score drops", func() bool {
		s, ok := a.o.PeerScore(h.ID())
		return ok && s <= 4*4*invalidMessageWeight*0.5 // decays slowly; 4 rejections ≈ -1600
	})
	if a.row(t, forged) != nil {
		t.Error("a forged record created a peer row")
	}
}

// rawRecord encodes a version-1 record for id, padded with a role.
func rawRecord(t *testing.T, id string, seq uint64, pad string) []byte {
	t.Helper()
	r := presenceRecord{V: 1, ID: id, Addrs: []string{"/ip4/127.0.0.1/tcp/1"}, Types: []string{"sh"}, Seq: seq}
	if pad != "" {
		r.Ver = "v"
		r.Roles = []string{"r"}
		b, _ := json.Marshal(&r)
		return append(b[:len(b)-1], []byte(`,"pad":"`+pad+`"}`)...)
	}
	b, err := json.Marshal(&r)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestParsePresence(t *testing.T) {
	_, pub, _ := crypto.GenerateEd25519Key(rand.Reader)
	id, _ := peer.IDFromPublicKey(pub)
	ok := `{"v":1,"id":"` + id.String() + `","addrs":["/ip4/1.2.3.4/tcp/1"],"seq":5,"extra":true}`
	if r, err := parsePresence([]byte(ok), id); err != nil || r.Seq != 5 || r.peer != id {
		t.Fatalf("valid record: %+v %v", r, err)
	}
	bad := map[string]string{
		"not json":   `{`,
		"no seq":     `{"v":1,"id":"` + id.String() + `"}`,
		"bad addr":   `{"v":1,"id":"` + id.String() + `","seq":1,"addrs":["nope"]}`,
		"negative":   `{"v":1,"id":"` + id.String() + `","seq":1,"load":-1}`,
		"bad id":     `{"v":1,"id":"xyz","seq":1}`,
		"empty role": `{"v":1,"id":"` + id.String() + `","seq":1,"roles":[""]}`,
	}
	for name, data := range bad {
		if _, err := parsePresence([]byte(data), id); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if _, err := parsePresence([]byte(`{"v":2,"id":"x"}`), id); err != errPresenceVersion {
		t.Errorf("future version: %v", err)
	}
}

// An agent that joins after another's last record went by learns of it at
// once, not at its next interval: the other answers a newcomer's first
// record with its own. (The interval here is an hour: without the answer B
// would not see A up for an hour.) Two home agents that reach each other
// only through a rendezvous start in either order.
func TestNewcomerLearnsOfOthersAtOnce(t *testing.T) {
	cfg := testConfig()
	cfg.PresenceInterval = time.Hour
	p := startAgent(t, cfg)
	cfgA := cfg
	cfgA.Bootstrap = []string{p.addr()}
	a := startAgent(t, cfgA)
	waitFor(t, 30*time.Second, "P sees A up", func() bool { return p.seesUp(t, a.o.ID()) })
	b := startAgent(t, cfgA)
	waitFor(t, 30*time.Second, "A sees B up", func() bool { return a.seesUp(t, b.o.ID()) })
	waitFor(t, 30*time.Second, "B, come later through P, sees A up", func() bool { return b.seesUp(t, a.o.ID()) })
}
