package store

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// contextEventPattern matches the keyspace notifications of a write to a
// context hash, in any DB.
const contextEventPattern = "__keyspace@*__:context:*"

// EnableContextEvents makes the server publish keyspace notifications for
// hash commands (flags K and h added to notify-keyspace-events, keeping the
// ones already set), so a context a seed client writes in its own DB is
// seen at once. It reports false, with the reason, when the server refuses
// CONFIG; the caller then looks for such contexts by polling.
func (s *Registry) EnableContextEvents(ctx context.Context) (bool, error) {
	return s.enableKeyspace(ctx, "store.EnableContextEvents", "h")
}

// ContextWrites is an open subscription to writes of context hashes; Close
// ends it.
type ContextWrites struct {
	ps   *redis.PubSub
	done chan struct{}
}

// Close ends the subscription and waits until the callback is no longer
// called.
func (w *ContextWrites) Close() error {
	err := w.ps.Close()
	<-w.done
	return err
}

// SubscribeContextWrites calls fn with N each time context:<N> is written
// in DB N (N > 0), from one goroutine that reads the pub/sub connection
// (fn must not block). It returns once the server has confirmed the
// subscription, so a write after it is seen. go-redis reconnects and
// resubscribes when the server comes back; writes meanwhile are not seen,
// so callers also look from time to time.
func (s *Registry) SubscribeContextWrites(ctx context.Context, fn func(id uint64)) (*ContextWrites, error) {
	ps := s.global.PSubscribe(ctx, contextEventPattern)
	if _, err := ps.Receive(ctx); err != nil {
		ps.Close()
		return nil, fmt.Errorf("store.SubscribeContextWrites: %w", err)
	}
	w := &ContextWrites{ps: ps, done: make(chan struct{})}
	go func() {
		defer close(w.done)
		for {
			m, err := ps.ReceiveMessage(context.Background())
			if errors.Is(err, redis.ErrClosed) {
				return
			}
			if err != nil {
				time.Sleep(100 * time.Millisecond) // the next receive reconnects
				continue
			}
			if id, ok := parseContextEvent(m.Channel); ok {
				fn(id)
			}
		}
	}()
	return w, nil
}

// parseContextEvent reads __keyspace@<N>__:context:<N>, N > 0: a context's
// own hash (DB 0's registry copies and other keys are not).
func parseContextEvent(channel string) (uint64, bool) {
	rest, ok := strings.CutPrefix(channel, "__keyspace@")
	if !ok {
		return 0, false
	}
	num, key, ok := strings.Cut(rest, "__:")
	if !ok || key != "context:"+num {
		return 0, false
	}
	id, err := strconv.ParseUint(num, 10, 64)
	return id, err == nil && id > 0
}
