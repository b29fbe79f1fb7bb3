package store_test

import (
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/hyphae-run/hyphae/context/store"
)

// With SetIDBlock(1) (bus.plain's idblocks) every id costs its own round
// trip and nothing is reserved: the counter stands at the last id handed
// out, as after a plain client's INCRs, and the ids run 1, 2, 3 ….
func TestSetIDBlockOneReservesNothing(t *testing.T) {
	ctx := ctCtx(t)
	s, srv := ctOpen(t)
	s.SetIDBlock(1)
	raw := redis.NewClient(&redis.Options{Addr: srv.Addr, DB: 1})
	defer raw.Close()
	for want := uint64(1); want <= 40; want++ {
		ids, err := s.Jobs.NextIDs(ctx, 1, "job")
		if err != nil {
			t.Fatal(err)
		}
		if ids[0] != want {
			t.Fatalf("id %d, want %d", ids[0], want)
		}
		seq, err := raw.Get(ctx, store.SeqKey("job")).Uint64()
		if err != nil || seq != want {
			t.Fatalf("seq:job = %d (%v) after id %d: ids reserved beyond those handed out", seq, err, want)
		}
	}
}
