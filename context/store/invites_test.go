package store_test

import (
	"testing"

	"github.com/hyphae-run/hyphae/context/store"
)

// An invite is taken once: the second take, a revoked one and an expired
// one say why and change nothing.
func TestInviteTakeOnce(t *testing.T) {
	s, _ := ctOpen(t)
	ctx := ctCtx(t)
	r := s.Registry
	for _, v := range []*store.Invite{
		{ID: "a", Context: 1, Role: "executor", Key: "00", CreatedAt: 10, ExpiresAt: 100, State: "open"},
		{ID: "b", Context: 1, Role: "reader", Key: "00", CreatedAt: 11, State: "open"},
		{ID: "c", Context: 1, Role: "reader", Key: "00", CreatedAt: 12, ExpiresAt: 50, State: "open"},
	} {
		if err := r.SaveInvite(ctx, v); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.SaveInvite(ctx, &store.Invite{ID: "a", State: "open"}); err == nil {
		t.Fatal("an invite id saved twice")
	}
	take := func(id string, now int64, want string) {
		t.Helper()
		if got, err := r.TakeInvite(ctx, id, "12D3KooWbob", now); err != nil || got != want {
			t.Fatalf("TakeInvite(%s) = %q, %v; want %q", id, got, err, want)
		}
	}
	take("a", 60, "ok")
	take("a", 61, "used")
	if got, _ := r.RevokeInvite(ctx, "b"); got != "ok" {
		t.Fatalf("revoke b: %q", got)
	}
	take("b", 60, "revoked")
	take("c", 60, "expired")
	take("zz", 60, "unknown")
	vs, err := r.ListInvites(ctx)
	if err != nil || len(vs) != 3 {
		t.Fatalf("ListInvites = %d, %v", len(vs), err)
	}
	if vs[0].State != "used" || vs[0].UsedBy != "12D3KooWbob" || vs[0].UsedAt != 60 || vs[1].State != "revoked" || vs[2].State != "open" {
		t.Fatalf("after the takes: %+v %+v %+v", vs[0], vs[1], vs[2])
	}
	if err := r.SetPeerName(ctx, "alice", "12D3KooWalice"); err != nil {
		t.Fatal(err)
	}
	if id, _ := r.PeerByName(ctx, "alice"); id != "12D3KooWalice" {
		t.Fatalf("PeerByName = %q", id)
	}
	if id, _ := r.PeerByName(ctx, "nobody"); id != "" {
		t.Fatalf("PeerByName(nobody) = %q", id)
	}
}
