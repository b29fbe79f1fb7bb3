package scheduler

import (
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"syscall"
	"time"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/store"
)

// ensureLoop starts the event loop of context ctxID unless it runs (or
// the store cannot serve that context: said once).
func (s *Scheduler) ensureLoop(ctxID uint64) {
	s.mu.Lock()
	have := s.loops[ctxID]
	s.loops[ctxID] = true
	s.mu.Unlock()
	if have {
		return
	}
	if err := s.st.Registry.CheckContextID(ctxID); err != nil {
		s.log.Warn("not serving context", "context", ctxID, "err", err)
		return
	}
	s.spawn(func(ctx context.Context) { s.loop(ctx, ctxID) })
	s.startEventLoops(ctxID) // events, triggers and wait_for (events_loop.go)
}

// refresher starts loops for contexts that appear. Loops of contexts that
// disappear keep running: they block on an empty list and cost nothing.
func (s *Scheduler) refresher(ctx context.Context) {
	t := time.NewTicker(s.cfg.Refresh)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		ids, err := s.contexts(ctx)
		if err != nil {
			s.log.Warn("listing contexts", "err", err)
			continue
		}
		for _, id := range ids {
			s.ensureLoop(id)
		}
	}
}

// loop recovers the context's flows, then consumes its jobs_done list:
// each key is moved to this scheduler's processing list, handled, and
// removed, so a crash in between loses nothing (Start puts it back).
func (s *Scheduler) loop(ctx context.Context, ctxID uint64) {
	log := s.log.With("context", ctxID)
	for b := newBackoff(); ctx.Err() == nil; b.wait(ctx) {
		err := s.recoverContext(ctx, ctxID)
		if err == nil {
			break
		}
		log.Warn("recovery failed; retrying", "err", err)
	}
	take := s.taker(ctxID, store.JobsDoneKey, s.proc, func(ctx context.Context) (string, error) {
		return s.st.Flows.NextJobDone(ctx, ctxID, s.proc, s.cfg.Block)
	})
	b := newBackoff()
	for ctx.Err() == nil {
		key, err := take(ctx)
		if err != nil {
			if ctx.Err() == nil {
				log.Warn("reading jobs_done", "err", err)
				b.wait(ctx)
			}
			continue
		}
		b.reset()
		if key != "" {
			s.handle(ctx, ctxID, key)
		}
	}
}

// handle processes one jobs_done entry. While Redis is unreachable it
// retries for as long as that lasts; an entry that fails otherwise five
// times goes to the dead-letter list. On shutdown it stays in the
// processing list for the next start.
func (s *Scheduler) handle(ctx context.Context, ctxID uint64, key string) {
	b := newBackoff()
	err := s.onJobDone(ctx, ctxID, key)
	for failures := 1; err != nil && failures < 5 && b.wait(ctx); {
		if !transient(err) {
			failures++
		}
		err = s.onJobDone(ctx, ctxID, key)
	}
	if ctx.Err() != nil {
		return
	}
	if err != nil {
		s.log.Error("dropping jobs_done entry", "context", ctxID, "job", key, "err", err)
		_ = s.st.Queues.PushDeadLetter(ctx, ctxID, store.DeadLetter{Key: key, Queue: store.JobsDoneKey,
			Reason: err.Error(), Runner: "scheduler"})
	}
	if err := s.st.Flows.AckJobDone(ctx, ctxID, s.proc, key); err != nil {
		s.log.Warn("ack jobs_done", "job", key, "err", err)
	}
}

// transient reports whether err says Redis could not be reached (or is
// busy) rather than that the entry cannot be handled.
func transient(err error) bool {
	var ne net.Error
	if errors.As(err, &ne) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, errStale) {
		return true
	}
	msg := err.Error()
	for _, m := range []string{"connection pool timeout", "LOADING", "BUSY", "TRYAGAIN", "READONLY", "MASTERDOWN"} {
		if strings.Contains(msg, m) {
			return true
		}
	}
	return false
}

// onJobDone handles the end of a job of a flow.
func (s *Scheduler) onJobDone(ctx context.Context, ctxID uint64, key string) error {
	j, err := s.st.Jobs.LoadJobKey(ctx, ctxID, key)
	if errors.Is(err, store.ErrNotFound) || errors.Is(err, model.ErrBadField) {
		s.log.Warn("jobs_done names an unusable job", "context", ctxID, "job", key, "err", err)
		return nil
	}
	if err != nil {
		return err
	}
	if j.FlowID == 0 || !j.Status.Terminal() {
		return nil // not a flow job, or a stale event of an attempt that was retried
	}
	s.jobEnded(ctx, ctxID, j) // for on: {job_ended: …} (events_ended.go)
	err = s.withRun(ctx, ctxID, j.FlowID, func(r *flowRun) error { return s.settle(ctx, r, j) })
	if errors.Is(err, ErrEnded) || errors.Is(err, store.ErrNotFound) {
		return nil
	}
	return err
}

// backoff waits 50ms, doubling up to 2s.
type backoff struct{ d time.Duration }

func newBackoff() *backoff { return &backoff{d: 50 * time.Millisecond} }

func (b *backoff) reset() { b.d = 50 * time.Millisecond }

func (b *backoff) wait(ctx context.Context) bool {
	t := time.NewTimer(b.d)
	defer t.Stop()
	b.d = min(2*b.d, 2*time.Second)
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
