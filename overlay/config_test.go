package overlay

import (
	"bytes"
	"crypto/rand"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/peer"
)

func TestConfigValidate(t *testing.T) {
	if err := (Config{}).Validate(); err != nil {
		t.Fatalf("zero config: %v", err)
	}
	d := Config{}.withDefaults()
	if d.PresenceInterval != 3*time.Second || d.DownAfter != 3 || d.MaxMessageSize != 1<<20 || len(d.Listen) != 2 {
		t.Fatalf("defaults: %+v", d)
	}
	bad := map[string]Config{
		"listen":     {Listen: []string{"tcp/4001"}},
		"bootstrap":  {Bootstrap: []string{"/ip4/1.2.3.4/tcp/1"}},
		"relay":      {Relays: []string{"nope"}},
		"swarm key":  {SwarmKey: []byte("short")},
		"interval":   {PresenceInterval: time.Millisecond},
		"msg size":   {MaxMessageSize: 100},
		"conn marks": {ConnLow: 500, ConnHigh: 10},
	}
	for name, c := range bad {
		if err := c.Validate(); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func TestFrameRoundTrip(t *testing.T) {
	_, pub, _ := crypto.GenerateEd25519Key(rand.Reader)
	id, _ := peer.IDFromPublicKey(pub)
	f1, err := encodeFrame(id, []byte("payload"))
	if err != nil {
		t.Fatal(err)
	}
	f2, _ := encodeFrame(id, []byte("payload"))
	if bytes.Equal(f1, f2) {
		t.Fatal("two frames of one payload must differ (nonce)")
	}
	got, err := decodeFrame(f1)
	if err != nil || got.to != id || string(got.payload) != "payload" {
		t.Fatalf("decode: %+v %v", got, err)
	}
	for name, b := range map[string][]byte{
		"empty": nil, "short": f1[:10], "bad id": append([]byte{1, 3, 1, 2, 3}, make([]byte, 8)...),
	} {
		if _, err := decodeFrame(b); err == nil {
			t.Errorf("%s: decoded", name)
		}
	}
	if _, err := decodeFrame(append([]byte{9}, f1[1:]...)); err != errFrameVersion {
		t.Errorf("future version: %v", err)
	}
}
