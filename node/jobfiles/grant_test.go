package jobfiles

import (
	"strings"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/peer"
)

func newKey(t *testing.T) (crypto.PrivKey, peer.ID) {
	t.Helper()
	k, _, err := crypto.GenerateEd25519Key(nil)
	if err != nil {
		t.Fatal(err)
	}
	id, err := peer.IDFromPrivateKey(k)
	if err != nil {
		t.Fatal(err)
	}
	return k, id
}

// A grant opens for the peer it names, signed by the job's origin, before
// it expires; anything else is refused with the reason.
func TestGrant(t *testing.T) {
	origin, originID := newKey(t)
	other, _ := newKey(t)
	_, to := newKey(t)
	_, stranger := newKey(t)
	now := time.Now()
	signer := func(string) (string, error) { return originID.String(), nil }
	g, err := SignGrant(origin, "1/job:3:7", to.String(), now.Add(time.Hour))
	if err != nil || !isGrant(g) || len(g) > 255 {
		t.Fatalf("grant %q (%d bytes): %v", g, len(g), err)
	}
	if ref, err := openGrant(g, to, signer, now); err != nil || ref != "1/job:3:7" {
		t.Fatalf("open: %q %v", ref, err)
	}
	forged, _ := SignGrant(other, "1/job:3:7", to.String(), now.Add(time.Hour))
	tampered := strings.Replace(g, "1/job:3:7", "1/job:3:8", 1)
	for _, tc := range []struct {
		what, g string
		p       peer.ID
		at      time.Time
		want    string
	}{
		{"another peer", g, stranger, now, "not signed by"},
		{"another signer", forged, to, now, "not signed by"},
		{"another ref", tampered, to, now, "not signed by"},
		{"expired", g, to, now.Add(2 * time.Hour), "expired"},
		{"malformed", "g1.x", to, now, "malformed"},
	} {
		if _, err := openGrant(tc.g, tc.p, signer, tc.at); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.what, err, tc.want)
		}
	}
}
