package store_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/store"
)

// Contexts written only in their own DB are found among every DB, and among
// given ones, over at most one more connection to the server: looking opens
// no client per DB.
func TestContextsOnlyInOwnDBAreFoundOverOneConnection(t *testing.T) {
	ctx := ctCtx(t)
	s, srv := ctOpen(t)
	if err := s.Registry.CreateContext(ctx, &model.Context{ID: 3, Name: "registered", Admins: []uint64{1}}); err != nil {
		t.Fatal(err)
	}
	raw5, raw0 := srv.Client(t, 5), srv.Client(t, 0)
	if err := raw5.HSet(ctx, store.ContextKey(5), "id", "5").Err(); err != nil {
		t.Fatal(err)
	}
	clients := func() int {
		list, err := raw0.ClientList(ctx).Result()
		if err != nil {
			t.Fatal(err)
		}
		return strings.Count(strings.TrimSpace(list), "\n") + 1
	}
	before := clients()
	got, err := s.Registry.UnregisteredContexts(ctx, nil)
	if err != nil || !slices.Equal(got, []uint64{5}) {
		t.Fatalf("UnregisteredContexts = %v, %v; want [5]", got, err)
	}
	got, err = s.Registry.ContextsOnlyInOwnDB(ctx, []uint64{3, 4, 5})
	if err != nil || !slices.Equal(got, []uint64{5}) {
		t.Fatalf("ContextsOnlyInOwnDB(3, 4, 5) = %v, %v; want [5]", got, err)
	}
	if after := clients(); after > before+1 {
		t.Fatalf("connections %d before looking, %d after; want at most one more", before, after)
	}
	if _, err := s.Registry.ContextsOnlyInOwnDB(ctx, []uint64{0}); err == nil {
		t.Fatal("ContextsOnlyInOwnDB(0) succeeded; DB 0 is no context")
	}
}
