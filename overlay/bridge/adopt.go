package bridge

import (
	"context"
	"errors"
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

// adoptEvery is how often the DBs are looked at for such contexts.
const adoptEvery = 2 * time.Second

// adoptLoop adopts contexts written only in their own DB, every adoptEvery.
func (b *Bridge) adoptLoop() {
	t := time.NewTicker(adoptEvery)
	defer t.Stop()
	refused := map[uint64]string{} // the reason last written, per context
	for {
		b.adoptContexts(b.ctx, refused)
		select {
		case <-b.ctx.Done():
			return
		case <-t.C:
		}
	}
}

// adoptContexts adopts or refuses each context found only in its own DB.
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
