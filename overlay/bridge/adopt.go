package bridge

import (
	"context"
	"errors"
	"slices"
	"sync/atomic"
	"time"

	"github.com/hyphae-run/hyphae/context/store"
)

// A seed client makes a context by writing context:<N> in DB N only. The
// agent serves the contexts of its DB 0 registry, so such a context would
// be silently ignored. docs/design.md, "How Hyphae reads the specifications it follows" lets the agent adopt or refuse it; a
// seed client expects its context to work, so it is adopted (registered,
// then served by every part as it next refreshes its list of contexts), and
// one whose hash cannot be read is refused with the reason written on the
// hash itself (store.MarkContextRefused) and logged, once per reason.

// A write of context:<N> in DB N (a keyspace notification) has DB N looked
// at at once; every DB is looked at on start and then every adoptSafetyEvery,
// in case a notification was lost, or every adoptEvery when the server
// publishes none (CONFIG refused).
const (
	adoptEvery       = 2 * time.Second
	adoptSafetyEvery = time.Minute
)

// adoptLoop adopts contexts written only in their own DB, as they are
// written and on each full pass.
func (b *Bridge) adoptLoop() {
	w := newAdoptWakes()
	sub, err := b.st.Registry.SubscribeContextWrites(b.ctx, w.add)
	if err != nil {
		if b.ctx.Err() == nil {
			b.log.Warn("bridge: watch context writes; looking for contexts written in their own DB",
				"every", adoptEvery, "err", err)
		}
	} else {
		defer sub.Close()
	}
	refused := map[uint64]string{} // the reason last written, per context
	events, warned := false, false // notifications on at the last full pass; their absence logged
	t := time.NewTimer(0)
	defer t.Stop()
	for {
		select {
		case <-b.ctx.Done():
			return
		case <-t.C:
			if sub != nil {
				events = b.enableContextEvents(events, &warned)
			}
			b.adoptContexts(b.ctx, refused)
			t.Reset(adoptPeriod(events))
		case id := <-w.ch:
			if ids, all := w.take(id); all {
				b.adoptContexts(b.ctx, refused)
			} else {
				b.adoptWritten(b.ctx, ids, refused)
			}
		}
	}
}

func adoptPeriod(events bool) time.Duration {
	if events {
		return adoptSafetyEvery
	}
	return adoptEvery
}

// enableContextEvents turns on (or re-checks, as a restarted server drops
// CONFIG SET) the notifications of context writes; it logs when they turn
// off or are first found off, and why.
func (b *Bridge) enableContextEvents(was bool, warned *bool) bool {
	on, err := b.st.Registry.EnableContextEvents(b.ctx)
	if !on && (was || !*warned) && b.ctx.Err() == nil {
		b.log.Warn("bridge: no keyspace notifications; looking for contexts written in their own DB",
			"every", adoptEvery, "err", err)
		*warned = true
	}
	return on
}

// adoptWakes carries the DBs whose context hash was written to the loop:
// add never blocks (it is called from the subscription's reader); when the
// loop falls that far behind, the next take asks for a full pass instead.
type adoptWakes struct {
	ch   chan uint64
	lost atomic.Bool // a write was dropped: look at every DB
}

func newAdoptWakes() *adoptWakes { return &adoptWakes{ch: make(chan uint64, 64)} }

func (w *adoptWakes) add(id uint64) {
	select {
	case w.ch <- id:
	default:
		w.lost.Store(true)
	}
}

// take returns first and the DBs written since, once each, sorted; all is
// set when some were dropped.
func (w *adoptWakes) take(first uint64) (ids []uint64, all bool) {
	ids = []uint64{first}
	for {
		select {
		case id := <-w.ch:
			if !slices.Contains(ids, id) {
				ids = append(ids, id)
			}
		default:
			slices.Sort(ids)
			return ids, w.lost.Swap(false)
		}
	}
}

// adoptWritten adopts or refuses those of ids, just written, that are
// contexts written only in their own DB. The registry is asked, not the
// agent's cached list, so the write of an adoption does not start another.
func (b *Bridge) adoptWritten(ctx context.Context, ids []uint64, refused map[uint64]string) {
	var ok []uint64
	for _, id := range ids {
		if b.st.Registry.CheckContextID(id) == nil { // a DB beyond the server's is not a context
			ok = append(ok, id)
		}
	}
	found, err := b.st.Registry.ContextsOnlyInOwnDB(ctx, ok)
	if err != nil {
		if ctx.Err() == nil {
			b.log.Warn("bridge: look for contexts written only in their own DB", "err", err)
		}
		return
	}
	b.adoptFound(ctx, found, refused)
}

// adoptContexts adopts or refuses each context found only in its own DB
// (a full pass).
func (b *Bridge) adoptContexts(ctx context.Context, refused map[uint64]string) {
	known, err := b.cfg.Contexts(ctx) // the registry, as the agent lists it (cached)
	if err != nil {
		return
	}
	ids, err := b.st.Registry.UnregisteredContexts(ctx, known)
	if err != nil {
		if ctx.Err() == nil {
			b.log.Warn("bridge: look for contexts written only in their own DB", "err", err)
		}
		return
	}
	b.adoptFound(ctx, ids, refused)
}

// adoptFound adopts or refuses each of ids, contexts found only in their
// own DB; a refusal is written on the hash and logged once per reason.
func (b *Bridge) adoptFound(ctx context.Context, ids []uint64, refused map[uint64]string) {
	for _, id := range ids {
		c, err := b.st.Registry.AdoptOwnDBContext(ctx, id)
		switch {
		case errors.Is(err, store.ErrContextRefused):
			if refused[id] == err.Error() {
				continue
			}
			refused[id] = err.Error()
			b.log.Warn("bridge: context written only in its own DB refused", "context", id, "err", err)
			if merr := b.st.Registry.MarkContextRefused(ctx, id, err.Error()); merr != nil {
				b.log.Warn("bridge: mark context refused", "context", id, "err", merr)
			}
		case err != nil:
			b.log.Warn("bridge: adopt context", "context", id, "err", err)
		default:
			delete(refused, id)
			b.log.Info("bridge: adopted a context written only in its own DB", "context", id,
				"admins", c.Admins, "executors", c.Executors)
		}
	}
}
