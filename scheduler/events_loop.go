package scheduler

import (
	"context"
	"errors"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/store"
)

// startEventLoops starts the two loops of context ctxID that events need:
// one handles its events list (events, received chat and mail, wait_for
// timeouts), one parks its wait_for steps. Each moves an entry to a
// processing list of this scheduler, handles it and removes it, so a
// crash in between loses nothing (the entry is put back at start).
func (s *Scheduler) startEventLoops(ctxID uint64) {
	owner := s.cfg.owner()
	s.spawn(func(ctx context.Context) {
		s.entryLoop(ctx, ctxID, store.EventsKey, store.EventsProcessingKey(owner), s.onEventEntry)
	})
	s.spawn(func(ctx context.Context) {
		s.entryLoop(ctx, ctxID, store.WaitForQueueKey, store.WaitForProcessingKey(owner), s.park)
	})
}

type entryFunc func(ctx context.Context, ctxID uint64, entry string) error

// entryLoop puts back what proc holds, then handles list's entries.
func (s *Scheduler) entryLoop(ctx context.Context, ctxID uint64, list, proc string, fn entryFunc) {
	log := s.log.With("context", ctxID, "list", list)
	for b := newBackoff(); ctx.Err() == nil; b.wait(ctx) {
		_, err := s.st.Bus.Requeue(ctx, ctxID, proc, list)
		if err == nil {
			break
		}
		log.Warn("recovering entries; retrying", "err", err)
	}
	take := s.taker(ctxID, list, proc, func(ctx context.Context) (string, error) {
		return s.st.Events.NextEntry(ctx, ctxID, list, proc, s.cfg.Block)
	})
	b := newBackoff()
	for ctx.Err() == nil {
		entry, err := take(ctx)
		if err != nil {
			if ctx.Err() == nil {
				log.Warn("reading entries", "err", err)
				b.wait(ctx)
			}
			continue
		}
		b.reset()
		if entry != "" {
			s.handleEntry(ctx, ctxID, list, proc, entry, fn)
		}
	}
}

// handleEntry runs fn on entry as handle does a jobs_done entry: retried
// while Redis is away, dead-lettered after five other failures, left in
// proc on shutdown.
func (s *Scheduler) handleEntry(ctx context.Context, ctxID uint64, list, proc, entry string, fn entryFunc) {
	b := newBackoff()
	err := fn(ctx, ctxID, entry)
	for failures := 1; err != nil && failures < 5 && b.wait(ctx); {
		if !transient(err) {
			failures++
		}
		err = fn(ctx, ctxID, entry)
	}
	if ctx.Err() != nil {
		return
	}
	if err != nil {
		s.deadLetter(ctx, ctxID, list, entry, err.Error())
	}
	if err := s.st.Bus.Done(ctx, ctxID, proc, entry); err != nil {
		s.log.Warn("events: done", "entry", entry, "err", err)
	}
}

func (s *Scheduler) deadLetter(ctx context.Context, ctxID uint64, list, entry, why string) {
	s.log.Error("events: dropping entry", "context", ctxID, "list", list, "entry", entry, "err", why)
	_ = s.st.Queues.PushDeadLetter(ctx, ctxID, store.DeadLetter{Key: entry, Queue: list, Reason: why, Runner: "scheduler"})
}

// onEventEntry handles one entry of the events list: a wait_for timeout,
// or an event (or chat or mail message) to match against the context's
// triggers and parked waits.
func (s *Scheduler) onEventEntry(ctx context.Context, ctxID uint64, entry string) error {
	if member, ok := store.ParseWaitTimeout(entry); ok {
		return s.waitTimedOut(ctx, ctxID, member)
	}
	m, err := s.st.Bus.LoadMessageKey(ctx, ctxID, entry)
	if errors.Is(err, store.ErrNotFound) {
		return nil // pruned meanwhile
	}
	if err != nil && !errors.Is(err, model.ErrBadField) {
		return err
	}
	var e *model.Event
	if err == nil {
		e, err = model.EventOf(entry, m)
	}
	if err != nil { // malformed: quarantined with the reason, nothing started
		s.deadLetter(ctx, ctxID, store.EventsKey, entry, err.Error())
		return nil
	}
	if err := s.trig.Fire(ctx, ctxID, e, m); err != nil {
		return err
	}
	return s.resumeWaits(ctx, ctxID, e)
}

// loadEvent reads the event stored as key; nil when it is gone or no
// usable event.
func (s *Scheduler) loadEvent(ctx context.Context, ctxID uint64, key string) (*model.Event, error) {
	m, err := s.st.Bus.LoadMessageKey(ctx, ctxID, key)
	if errors.Is(err, store.ErrNotFound) || errors.Is(err, model.ErrBadField) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	e, err := model.EventOf(key, m)
	if err != nil {
		return nil, nil
	}
	return e, nil
}
