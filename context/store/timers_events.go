package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// TimerEvent is a message of TimersChannel: context CtxID has a new
// earliest timer, due at Due. Resync (no context) says that the
// subscription was broken and messages may have been lost, so every timer
// should read its next due time again.
type TimerEvent struct {
	CtxID  uint64
	Due    time.Time
	Resync bool
}

// TimerEvents is an open subscription; Close ends it.
type TimerEvents struct {
	ps   *redis.PubSub
	done chan struct{}
}

// Close ends the subscription and waits until the callback is no longer
// called.
func (e *TimerEvents) Close() error {
	err := e.ps.Close()
	<-e.done
	return err
}

// SubscribeTimers calls fn (which must not block) with each message of
// TimersChannel, from one goroutine. go-redis reconnects when the server
// comes back; fn then gets a Resync event, since messages sent meanwhile
// are lost.
func (s *Timing) SubscribeTimers(ctx context.Context, fn func(TimerEvent)) (*TimerEvents, error) {
	ps := s.global.Subscribe(ctx, TimersChannel)
	if _, err := ps.Receive(ctx); err != nil { // the subscription's confirmation
		ps.Close()
		return nil, fmt.Errorf("store.SubscribeTimers: %w", err)
	}
	e := &TimerEvents{ps: ps, done: make(chan struct{})}
	go func() {
		defer close(e.done)
		broken := false
		for {
			msg, err := ps.Receive(context.Background())
			if errors.Is(err, redis.ErrClosed) {
				return
			}
			if err != nil {
				broken = true
				time.Sleep(100 * time.Millisecond) // the next receive reconnects
				continue
			}
			switch m := msg.(type) {
			case *redis.Subscription:
				if broken { // resubscribed after a reconnect
					broken = false
					fn(TimerEvent{Resync: true})
				}
			case *redis.Message:
				if id, ms, ok := parseTimerMessage(m.Payload); ok {
					fn(TimerEvent{CtxID: id, Due: time.UnixMilli(ms)})
				}
			}
		}
	}()
	return e, nil
}
