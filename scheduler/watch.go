package scheduler

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/hyphae-run/hyphae/context/store"
)

// subscriber is told when its flow changes (endOnly: when it ends).
type subscriber struct {
	poke    chan struct{} // cap 1: a pending wake-up
	endOnly bool
}

func (s *Scheduler) addSub(k runKey, endOnly bool) *subscriber {
	sub := &subscriber{poke: make(chan struct{}, 1), endOnly: endOnly}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.subs[k] == nil {
		s.subs[k] = map[*subscriber]struct{}{}
	}
	s.subs[k][sub] = struct{}{}
	return sub
}

func (s *Scheduler) dropSub(k runKey, sub *subscriber) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.subs[k], sub)
	if len(s.subs[k]) == 0 {
		delete(s.subs, k)
	}
}

// notify wakes the subscribers of a flow without blocking.
func (s *Scheduler) notify(k runKey, ended bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for sub := range s.subs[k] {
		if sub.endOnly && !ended {
			continue
		}
		select {
		case sub.poke <- struct{}{}:
		default:
		}
	}
}

// Subscribe streams a flow's Status: the current one at once, then each
// change (coalesced: a slow reader gets the latest), closing the channel
// after the flow ends, on cancel, or on Shutdown.
func (s *Scheduler) Subscribe(ctxID, flowID uint64) (<-chan *Status, func()) {
	out := make(chan *Status, 1)
	done := make(chan struct{})
	var once sync.Once
	cancel := func() { once.Do(func() { close(done) }) }
	k := runKey{ctxID, flowID}
	sub := s.addSub(k, false)
	ok := s.spawn(func(ctx context.Context) {
		defer close(out)
		defer s.dropSub(k, sub)
		s.feed(ctx, k, sub, out, done)
	})
	if !ok {
		s.dropSub(k, sub)
		close(out)
	}
	return out, cancel
}

// feed sends a Status whenever the version changes, at most every 50ms.
func (s *Scheduler) feed(ctx context.Context, k runKey, sub *subscriber, out chan<- *Status, done <-chan struct{}) {
	tick := time.NewTicker(s.cfg.WatchPoll)
	defer tick.Stop()
	last := ""
	for {
		st, err := s.Status(ctx, k.ctx, k.id)
		if errors.Is(err, store.ErrNotFound) {
			return
		}
		if err == nil && st.Version != last {
			select {
			case out <- st:
				last = st.Version
			case <-done:
				return
			case <-ctx.Done():
				return
			}
		}
		if err == nil && st.Terminal() {
			return
		}
		if !pause(ctx, done, 50*time.Millisecond) {
			return
		}
		select {
		case <-sub.poke:
		case <-tick.C:
		case <-done:
			return
		case <-ctx.Done():
			return
		}
	}
}

func pause(ctx context.Context, done <-chan struct{}, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-done:
	case <-ctx.Done():
	}
	return false
}

// Wait blocks until the flow ends (or ctx is done) and returns its Status.
func (s *Scheduler) Wait(ctx context.Context, ctxID, flowID uint64) (*Status, error) {
	return s.Next(ctx, ctxID, flowID, "")
}

// Next blocks until the flow's Status version differs from after ("" =
// only when it ends), the flow ends, or ctx is done; then it returns the
// Status (with ctx's error in the last case).
func (s *Scheduler) Next(ctx context.Context, ctxID, flowID uint64, after string) (*Status, error) {
	k := runKey{ctxID, flowID}
	sub := s.addSub(k, after == "")
	defer s.dropSub(k, sub)
	tick := time.NewTicker(s.cfg.WatchPoll)
	defer tick.Stop()
	for {
		st, err := s.Status(ctx, ctxID, flowID)
		if err != nil {
			return nil, err
		}
		if st.Terminal() || (after != "" && st.Version != after) {
			return st, nil
		}
		select {
		case <-sub.poke:
		case <-tick.C:
		case <-ctx.Done():
			return st, ctx.Err()
		case <-s.ctx.Done():
			return st, ErrClosed
		}
	}
}
