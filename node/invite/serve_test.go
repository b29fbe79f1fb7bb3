package invite

import (
	"context"
	"encoding/base64"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hyphae-run/hyphae/context/store"
	"github.com/hyphae-run/hyphae/crypto/identity"
)

// memStore is Store in memory, with TakeInvite's rule.
type memStore struct {
	mu sync.Mutex
	m  map[string]*store.Invite
}

func (s *memStore) SaveInvite(_ context.Context, v *store.Invite) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := *v
	s.m[v.ID] = &c
	return nil
}

func (s *memStore) LoadInvite(_ context.Context, id string) (*store.Invite, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.m[id]
	if !ok {
		return nil, store.ErrNotFound
	}
	c := *v
	return &c, nil
}

func (s *memStore) ListInvites(context.Context) ([]*store.Invite, error) { return nil, nil }

func (s *memStore) TakeInvite(_ context.Context, id, by string, now int64) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.m[id]
	switch {
	case !ok:
		return "unknown", nil
	case v.State != "open":
		return v.State, nil
	case v.ExpiresAt > 0 && now >= v.ExpiresAt:
		return "expired", nil
	}
	v.State, v.UsedBy, v.UsedAt = "used", by, now
	return "ok", nil
}

func (s *memStore) RevokeInvite(context.Context, string) (string, error) { return "ok", nil }
func (s *memStore) SetPeerName(context.Context, string, string) error    { return nil }
func (s *memStore) PeerByName(context.Context, string) (string, error)   { return "", nil }

func newID(t *testing.T) *identity.Identity {
	t.Helper()
	id, err := identity.Generate()
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// Admit refuses every forgery before it takes the invite, so a refused
// request leaves the invite open for the real one.
func TestAdmitRefusesForgeries(t *testing.T) {
	ctx := context.Background()
	alice, bob, eve := newID(t), newID(t), newID(t)
	st := &memStore{m: map[string]*store.Invite{}}
	grants := 0
	srv := &Server{Store: st, Self: alice.PeerID(), ActorID: 1,
		Grant:     func(context.Context, uint64, string, string) error { grants++; return nil },
		AddRunner: func(context.Context, uint64, string) (uint64, error) { return 7, nil }}
	now := time.Now()
	code, _, err := Create(ctx, st, 1, "executor", true, time.Hour, now)
	if err != nil {
		t.Fatal(err)
	}
	code.Peer = alice.PeerID().String()
	good, err := NewRequest(code, bob, now)
	if err != nil {
		t.Fatal(err)
	}
	badSig := *good
	sig, _ := base64.StdEncoding.DecodeString(good.Sig)
	sig[0] ^= 1
	badSig.Sig = base64.StdEncoding.EncodeToString(sig)
	byEve, _ := NewRequest(code, eve, now) // eve's proof, sent over bob's connection
	late, _ := NewRequest(code, bob, now.Add(-time.Hour))
	wrong := *code
	wrong.Secret = append([]byte{}, code.Secret...)
	wrong.Secret[3] ^= 1
	badSecret, _ := NewRequest(&wrong, bob, now)
	unknown := *good
	unknown.ID = "0000000000000000"
	for _, c := range []struct {
		name string
		req  *Request
		why  string
	}{
		{"bad signature", &badSig, "forged: bad signature"},
		{"another key", byEve, "forged: the pubkey is not the peer"},
		{"clock", late, "clocks differ"},
		{"secret", badSecret, "forged: the secret does not match"},
		{"unknown", &unknown, "unknown invite"},
	} {
		if a := srv.Admit(ctx, bob.PeerID(), c.req); a.OK || !strings.Contains(a.Reason, c.why) {
			t.Errorf("%s: %+v, want refused %q", c.name, a, c.why)
		}
	}
	if grants != 0 {
		t.Fatalf("forgeries granted %d roles", grants)
	}
	a := srv.Admit(ctx, bob.PeerID(), good)
	if !a.OK || a.Runner != "runner:7" || a.Context != 1 || grants != 1 {
		t.Fatalf("the real request: %+v (grants %d)", a, grants)
	}
	if a := srv.Admit(ctx, bob.PeerID(), good); a.OK || a.Reason != "already used" || grants != 1 {
		t.Fatalf("replayed: %+v (grants %d)", a, grants)
	}
}

// A code reads back as written; a mistyped one, or another version, says so.
func TestCodeRoundTripAndChecksum(t *testing.T) {
	c := &Code{Peer: "12D3KooWabc", Addrs: []string{"/ip4/127.0.0.1/tcp/4001"}, Name: "alice", ID: "00ff",
		Secret: make([]byte, secretLen), SwarmKey: "/key/swarm/psk/1.0.0/\n/base16/\nab"}
	s := c.String()
	got, err := Parse(s)
	if err != nil || got.Peer != c.Peer || got.Name != "alice" || got.SwarmKey != c.SwarmKey || got.Addrs[0] != c.Addrs[0] {
		t.Fatalf("Parse(String()) = %+v, %v", got, err)
	}
	b := []byte(s)
	b[10] ^= 0x01
	if _, err := Parse(string(b)); err != ErrMistyped {
		t.Errorf("mistyped: %v", err)
	}
	if _, err := Parse(s[:len(s)-4]); err != ErrMistyped {
		t.Errorf("cut short: %v", err)
	}
	if _, err := Parse("hyi2." + s[len(Prefix):]); err != ErrVersion {
		t.Errorf("another version: %v", err)
	}
}
