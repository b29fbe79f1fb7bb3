package store

import (
	"context"
	"fmt"
	"sync"

	"github.com/redis/go-redis/v9"
)

// idBlock is how many ids NextIDs reserves at a time (INCRBY seq:<kind>).
// Other clients keep using INCR on the same counter, so ids stay unique;
// an agent that stops leaves the rest of its block unused (a gap).
const idBlock = 32

// idBlocks holds reserved id ranges per context and kind.
type idBlocks struct {
	mu sync.Mutex
	m  map[idKind][2]uint64 // next, last; guarded by mu
}

type idKind struct {
	ctx  uint64
	kind string
}

// take returns the next reserved id of k, or false when the block is used up.
func (b *idBlocks) take(k idKind) (uint64, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	r, ok := b.m[k]
	if !ok || r[0] > r[1] {
		return 0, false
	}
	b.m[k] = [2]uint64{r[0] + 1, r[1]}
	return r[0], true
}

// put stores a fresh block ending at last, minus the id it hands out now.
func (b *idBlocks) put(k idKind, last uint64) uint64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.m == nil {
		b.m = map[idKind][2]uint64{}
	}
	first := last - idBlock + 1
	b.m[k] = [2]uint64{first + 1, last}
	return first
}

// NextIDs allocates one id of each kind (seq:<kind>) in context ctxID's DB.
// Ids come from blocks reserved in advance, so most calls cost no round
// trip and the others one.
func (s *Store) NextIDs(ctx context.Context, ctxID uint64, kinds ...string) ([]uint64, error) {
	ids := make([]uint64, len(kinds))
	var missing []int
	for i, kind := range kinds {
		var ok bool
		if ids[i], ok = s.ids.take(idKind{ctxID, kind}); !ok {
			missing = append(missing, i)
		}
	}
	if len(missing) == 0 {
		return ids, nil
	}
	db, err := s.DB(ctxID)
	if err != nil {
		return nil, fmt.Errorf("store.NextIDs: %w", err)
	}
	cmds := make([]*redis.IntCmd, len(missing))
	if _, err := db.Pipelined(ctx, func(p redis.Pipeliner) error {
		for n, i := range missing {
			cmds[n] = p.IncrBy(ctx, SeqKey(kinds[i]), idBlock)
		}
		return nil
	}); err != nil {
		return nil, fmt.Errorf("store.NextIDs: %w", err)
	}
	for n, i := range missing {
		ids[i] = s.ids.put(idKind{ctxID, kinds[i]}, uint64(cmds[n].Val()))
	}
	return ids, nil
}
