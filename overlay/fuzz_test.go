package overlay

import (
	"bytes"
	"crypto/ed25519"
	"encoding/json"
	"strings"
	"testing"

	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/peer"
	ma "github.com/multiformats/go-multiaddr"
)

// fuzzPeer returns the peer ID of a fixed ed25519 key, so that corpus
// entries naming it replay the same way in every run.
func fuzzPeer(t testing.TB, seed byte) peer.ID {
	t.Helper()
	k, err := crypto.UnmarshalEd25519PrivateKey(ed25519.NewKeyFromSeed(bytes.Repeat([]byte{seed}, ed25519.SeedSize)))
	if err != nil {
		t.Fatal(err)
	}
	id, err := peer.IDFromPrivateKey(k)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// frameSeeds returns valid frames and a few mutations of them.
func frameSeeds(t testing.TB) [][]byte {
	alice, bob := fuzzPeer(t, 1), fuzzPeer(t, 2)
	frame := func(to peer.ID, payload []byte) []byte {
		b, err := encodeFrame(to, payload)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	b := frame(alice, []byte("fuzz payload"))
	head := 2 + len(alice)
	badID := append([]byte{frameVersion, 34}, bytes.Repeat([]byte{0xff}, 34+nonceSize)...)
	return [][]byte{
		b,
		frame(bob, nil),
		frame(alice, bytes.Repeat([]byte{0xa5}, 64<<10)),
		append([]byte{frameVersion + 1}, b[1:]...),
		b[:head+nonceSize],
		b[:head+nonceSize-1],
		b[:head],
		append([]byte{frameVersion, maxPeerIDSize + 1}, b[2:]...),
		append([]byte{frameVersion, 0}, b[2:]...),
		badID,
		{frameVersion},
		[]byte("not a frame at all"),
		nil,
	}
}

// FuzzDecodeFrame guards the inbox and relay topics: decoding a frame never
// panics, a failure says why, and a decoded frame re-encodes to the same
// bytes apart from its nonce, so it decodes to the same recipient and
// payload again.
func FuzzDecodeFrame(f *testing.F) {
	for _, s := range frameSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		fr, err := decodeFrame(b)
		if err != nil {
			if err.Error() == "" {
				t.Fatalf("error without a message for %x", b)
			}
			return
		}
		out, err := encodeFrame(fr.to, fr.payload)
		if err != nil {
			t.Fatalf("re-encoding a decoded frame for %q: %v", fr.to, err)
		}
		head := 2 + len(fr.to)
		if len(out) != len(b) || !bytes.Equal(out[:head], b[:head]) || !bytes.Equal(out[head+nonceSize:], b[head+nonceSize:]) {
			t.Fatalf("re-encoding differs beyond the nonce:\n in  %x\n out %x", b, out)
		}
		again, err := decodeFrame(out)
		if err != nil || again.to != fr.to || !bytes.Equal(again.payload, fr.payload) {
			t.Fatalf("round trip: %q %x, then %q %x (%v)", fr.to, fr.payload, again.to, again.payload, err)
		}
	})
}

// presenceSeed encodes a valid record for id, shaped the way
// (*Overlay).record builds them, after edit (if not nil) changes it.
func presenceSeed(t testing.TB, id peer.ID, edit func(r *presenceRecord)) []byte {
	t.Helper()
	r := presenceRecord{
		V: presenceVersion, ID: id.String(),
		Addrs: []string{"/ip4/127.0.0.1/tcp/4001", "/ip6/::1/udp/4001/quic-v1"},
		Roles: clip([]string{"runner"}), Types: clip([]string{"sh", "python"}),
		Cap: 4, Load: 1, Ver: "0.1.0", Up: 42, Seq: 1718000000123,
	}
	if edit != nil {
		edit(&r)
	}
	b, err := json.Marshal(&r)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// FuzzParsePresence guards the presence topic's validator: parsing never
// panics, and an accepted record is the author's own and within every
// bound the parser promises (the table and the UI rely on them).
func FuzzParsePresence(f *testing.F) {
	alice, bob := fuzzPeer(f, 1), fuzzPeer(f, 2)
	many := func(n int, s string) []string { return strings.Split(strings.Repeat(s+",", n-1)+s, ",") }
	for _, edit := range []func(r *presenceRecord){
		nil,
		func(r *presenceRecord) { r.Addrs, r.Roles, r.Types, r.Ver = nil, nil, nil, "" },
		func(r *presenceRecord) { r.ID = bob.String() },
		func(r *presenceRecord) { r.V = presenceVersion + 1 },
		func(r *presenceRecord) { r.Ver = strings.Repeat("v", maxStringLen+1) },
		func(r *presenceRecord) { r.Roles = many(maxListLen+1, "runner") },
		func(r *presenceRecord) { r.Addrs = many(maxListLen, "/ip4/10.0.0.1/tcp/4001") },
		func(r *presenceRecord) { r.Types = many(40, strings.Repeat("t", maxStringLen)) },
		func(r *presenceRecord) { r.Addrs = []string{"not a multiaddr"} },
		func(r *presenceRecord) { r.Roles = []string{""} },
		func(r *presenceRecord) { r.Seq, r.Load = 0, -1 },
	} {
		f.Add(presenceSeed(f, alice, edit))
	}
	for _, s := range []string{`{"v":1,"id":"` + alice.String() + `","seq":"four"}`, `{"v":1}`, `[]`, `{`, ``} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := parsePresence(data, alice)
		if err != nil {
			if err.Error() == "" {
				t.Fatalf("error without a message for %q", data)
			}
			return
		}
		if r == nil || r.peer != alice || r.V != presenceVersion || len(data) > MaxPresenceSize {
			t.Fatalf("accepted %q as %+v", data, r)
		}
		if id, err := peer.Decode(r.ID); err != nil || id != alice {
			t.Fatalf("accepted id %q for author %s", r.ID, alice)
		}
		checkPresenceBounds(t, r)
	})
}

// checkPresenceBounds fails t unless r is within the parser's limits.
func checkPresenceBounds(t *testing.T, r *presenceRecord) {
	t.Helper()
	if r.Seq == 0 || r.Cap < 0 || r.Load < 0 || r.Up < 0 || len(r.Ver) > maxStringLen {
		t.Fatalf("accepted seq %d, cap %d, load %d, up %d, ver of %d bytes", r.Seq, r.Cap, r.Load, r.Up, len(r.Ver))
	}
	for _, list := range [][]string{r.Addrs, r.Roles, r.Types} {
		if len(list) > maxListLen {
			t.Fatalf("accepted a list of %d entries", len(list))
		}
		for _, s := range list {
			if s == "" || len(s) > maxStringLen {
				t.Fatalf("accepted list entry %q", s)
			}
		}
	}
	for _, a := range r.Addrs {
		if _, err := ma.NewMultiaddr(a); err != nil {
			t.Fatalf("accepted addr %q: %v", a, err)
		}
	}
}
