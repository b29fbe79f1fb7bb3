package store_test

import (
	"slices"
	"testing"

	"github.com/hyphae-run/hyphae/context/model"
)

func TestContextIDsListsTheRegistrySorted(t *testing.T) {
	ctx := ctCtx(t)
	s, srv := ctOpen(t)
	for _, id := range []uint64{3, 1, 12} {
		if err := s.Registry.CreateContext(ctx, &model.Context{ID: id}); err != nil {
			t.Fatal(err)
		}
	}
	// A stray key under the pattern is skipped, not an error.
	srv.Client(t, 0).Set(ctx, "context:notanumber", "x", 0)
	ids, err := s.Registry.ContextIDs(ctx)
	if err != nil || !slices.Equal(ids, []uint64{1, 3, 12}) {
		t.Fatalf("ContextIDs = %v, %v; want [1 3 12]", ids, err)
	}
}
