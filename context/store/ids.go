package store

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// idBlock is how many ids NextIDs reserves at a time (INCRBY seq:<kind>)
// unless SetIDBlock says otherwise. Other clients keep using INCR on the
// same counter, so ids stay unique; an agent that stops leaves the rest of
// its blocks unused (a gap).
const idBlock = 32

// idLow: when a block has this many ids left (half the block), the next
// block is reserved in the background, so a steady stream of NextIDs calls
// never waits for Redis (a job message and its result each take ids on the
// critical path of a cross-agent job).
const idLow = idBlock / 2

// refillTimeout bounds a background reservation.
const refillTimeout = 10 * time.Second

// idRange is the reserved ids next..end-1; the zero value is empty.
type idRange struct{ next, end uint64 }

// blockOf is the block of size ids that an INCRBY answered with last.
func blockOf(last, size uint64) idRange { return idRange{last - size + 1, last + 1} }

func (r idRange) left() uint64 { return r.end - min(r.next, r.end) }

// idState is one kind's reserved ids: the block in use, the next one when
// it has been reserved ahead, and whether that reservation is under way.
type idState struct {
	cur, spare idRange
	filling    bool
	floor      uint64 // ids up to it were chosen by callers: skipped (ids_claim.go)
}

// idBlocks holds reserved id ranges per context and kind, and the
// background reservations under way.
type idBlocks struct {
	mu     sync.Mutex
	m      map[idKind]*idState // guarded by mu
	wg     sync.WaitGroup      // reservations under way
	ctx    context.Context     // cancelled by stop (under mu): no more reservations
	cancel context.CancelFunc
	size   uint64 // ids per block (SetIDBlock); 1: no blocks, one INCR per id. Guarded by mu
}

func newIDBlocks() *idBlocks {
	b := &idBlocks{m: map[idKind]*idState{}, size: idBlock}
	b.ctx, b.cancel = context.WithCancel(context.Background())
	return b
}

type idKind struct {
	ctx  uint64
	kind string
}

// state returns k's state, made on first use; mu is held.
func (b *idBlocks) state(k idKind) *idState {
	st := b.m[k]
	if st == nil {
		st = &idState{}
		b.m[k] = st
	}
	return st
}

// take returns the next reserved id of k (false when none is left), and
// whether the caller should reserve the next block now (refill; the state
// is then marked filling).
func (b *idBlocks) take(k idKind) (id uint64, ok, refill bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	st := b.state(k)
	if id, ok = st.next(); !ok {
		return 0, false, false
	}
	return id, true, b.refillDue(st)
}

// takeReserved takes one reserved id of each kind, all or none (ok false
// when a kind has none left), and never asks for a refill: it costs no
// round trip and writes nothing, so a caller can take ids before it knows
// they will be used, and call refillLow once they are.
func (b *idBlocks) takeReserved(ctxID uint64, kinds ...string) (ids []uint64, ok bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, kind := range kinds {
		st := b.state(idKind{ctxID, kind})
		if st.skipFloor(); st.cur.left()+st.spare.left() == 0 {
			return nil, false
		}
	}
	ids = make([]uint64, len(kinds))
	for i, kind := range kinds {
		ids[i], _ = b.state(idKind{ctxID, kind}).next()
	}
	return ids, true
}

// refillLow reports whether k's next block should be reserved now, as take
// does (the state is then marked filling).
func (b *idBlocks) refillLow(k idKind) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.refillDue(b.state(k))
}

// next hands out the next reserved id, moving to the spare block when the
// one in use has run out; mu is held.
func (st *idState) next() (uint64, bool) {
	st.skipFloor()
	if st.cur.left() == 0 {
		st.cur, st.spare = st.spare, idRange{}
	}
	if st.cur.left() == 0 {
		return 0, false
	}
	st.cur.next++
	return st.cur.next - 1, true
}

// refillDue reports whether st's block in use is low with no next block
// reserved or under way; it then marks st filling and counts the
// reservation the caller starts (reserveAhead). mu is held.
func (b *idBlocks) refillDue(st *idState) bool {
	due := b.size > 1 && st.cur.left() <= b.size/2 && st.spare.left() == 0 && !st.filling && b.ctx.Err() == nil
	if due {
		st.filling = true
		b.wg.Add(1)
	}
	return due
}

// put makes the block an INCRBY answered with last the one in use, and
// returns its first id, handed out now.
func (b *idBlocks) put(k idKind, last uint64) uint64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	r := blockOf(last, b.size)
	b.state(k).cur = idRange{r.next + 1, r.end}
	return r.next
}

// putSpare keeps a block reserved ahead (ok false: the reservation
// failed, and a later take may try again).
func (b *idBlocks) putSpare(k idKind, last uint64, ok bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	st := b.state(k)
	st.filling = false
	if ok {
		st.spare = blockOf(last, b.size)
	}
}

// stop stops new reservations and cancels those under way. A reservation
// already waiting for Redis's answer ends when the store's clients close
// (go-redis bounds a read by the context's deadline, not its cancel).
func (b *idBlocks) stop() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.cancel()
}

// wait waits for the reservations under way to end.
func (b *idBlocks) wait() { b.wg.Wait() }

// blockSize is the ids per block.
func (b *idBlocks) blockSize() uint64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.size
}

// SetIDBlock sets how many ids NextIDs reserves at a time (default 32);
// n <= 1 turns the blocks off: one INCR-like round trip (INCRBY 1) per
// id, nothing reserved ahead, as a plain client allocates (bus.plain, the
// idblocks shortcut). Call it before the first NextIDs.
func (s *Store) SetIDBlock(n int) {
	s.ids.mu.Lock()
	defer s.ids.mu.Unlock()
	s.ids.size = uint64(max(n, 1))
}

// nextIDs allocates one id of each kind (seq:<kind>) in context ctxID's DB.
// Ids come from blocks reserved in advance (the next one in the
// background, before the current one runs out), so calls cost no round
// trip unless they outrun the reservations.
func (s *core) nextIDs(ctx context.Context, ctxID uint64, kinds ...string) ([]uint64, error) {
	ids := make([]uint64, len(kinds))
	var missing []int
	for i, kind := range kinds {
		var ok, refill bool
		if ids[i], ok, refill = s.ids.take(idKind{ctxID, kind}); !ok {
			missing = append(missing, i)
		} else if refill {
			go s.reserveAhead(idKind{ctxID, kind})
		}
	}
	if len(missing) == 0 {
		return ids, nil
	}
	db, err := s.db(ctxID)
	if err != nil {
		return nil, fmt.Errorf("store.NextIDs: %w", err)
	}
	size := s.ids.blockSize()
	cmds := make([]*redis.IntCmd, len(missing))
	if _, err := db.Pipelined(ctx, func(p redis.Pipeliner) error {
		for n, i := range missing {
			cmds[n] = p.IncrBy(ctx, SeqKey(kinds[i]), int64(size))
		}
		return nil
	}); err != nil {
		return nil, fmt.Errorf("store.NextIDs: %w", err)
	}
	for n, i := range missing {
		var ok bool
		if ids[i], ok = s.ids.putAbove(idKind{ctxID, kinds[i]}, uint64(cmds[n].Val())); !ok {
			return s.nextIDs(ctx, ctxID, kinds...) // the block lay under a caller's id: reserve anew
		}
	}
	return ids, nil
}

// reservedIDs takes one id of each kind from the blocks of context ctxID
// already reserved in memory (idBlocks.takeReserved): ok false, and
// nothing taken, when a kind has none left. It writes nothing to Redis,
// not even a reservation ahead: call reserveLow once the ids are used.
func (s *core) reservedIDs(ctxID uint64, kinds ...string) ([]uint64, bool) {
	return s.ids.takeReserved(ctxID, kinds...)
}

// reserveLow starts the reservation ahead of each kind whose block in use
// runs low, as NextIDs does after taking ids.
func (s *core) reserveLow(ctxID uint64, kinds ...string) {
	for _, kind := range kinds {
		if k := (idKind{ctxID, kind}); s.ids.refillLow(k) {
			go s.reserveAhead(k)
		}
	}
}

// reserveAhead reserves k's next block (one of s.ids.wg, counted by take).
func (s *core) reserveAhead(k idKind) {
	defer s.ids.wg.Done()
	ctx, cancel := context.WithTimeout(s.ids.ctx, refillTimeout)
	defer cancel()
	db, err := s.db(k.ctx)
	var last int64
	if err == nil {
		last, err = db.IncrBy(ctx, SeqKey(k.kind), int64(s.ids.blockSize())).Result()
	}
	if err != nil {
		s.log.Debug("store: reserve ids ahead", "context", k.ctx, "kind", k.kind, "err", err)
	}
	s.ids.putSpare(k, uint64(last), err == nil)
}
