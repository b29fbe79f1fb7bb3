package store_test

import (
	"context"
	"slices"
	"testing"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/store"
	"github.com/hyphae-run/hyphae/internal/testredis"
)

func TestContextIDsListsTheRegistrySorted(t *testing.T) {
	srv := testredis.Start(t)
	ctx := context.Background()
	s, err := store.Open(ctx, srv.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, id := range []uint64{3, 1, 12} {
		if err := s.CreateContext(ctx, &model.Context{ID: id}); err != nil {
			t.Fatal(err)
		}
	}
	// A stray key under the pattern is skipped, not an error.
	srv.Client(t, 0).Set(ctx, "context:notanumber", "x", 0)
	ids, err := s.ContextIDs(ctx)
	if err != nil || !slices.Equal(ids, []uint64{1, 3, 12}) {
		t.Fatalf("ContextIDs = %v, %v; want [1 3 12]", ids, err)
	}
}
