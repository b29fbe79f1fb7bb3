package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// EnableQueueEvents makes the server publish keyspace notifications for
// list commands (flags K and l added to notify-keyspace-events, keeping the
// ones already set), so runners wake when a job is pushed instead of
// polling. It reports false, with the reason, when the server refuses
// CONFIG (managed or embedded servers); runners then poll.
func (s *Queues) EnableQueueEvents(ctx context.Context) (bool, error) {
	return s.enableKeyspace(ctx, "store.EnableQueueEvents", "l")
}

// enableKeyspace adds K and the event class (one letter) to
// notify-keyspace-events, keeping the flags already set, with the classes
// asked for before in this process: a restarted server forgets CONFIG SET,
// and whichever part re-checks first restores them all. Callers take turns,
// so one's flags do not undo another's.
func (s *core) enableKeyspace(ctx context.Context, op, class string) (bool, error) {
	s.notifyMu.Lock()
	defer s.notifyMu.Unlock()
	if !strings.Contains(s.notifyWant, class) {
		s.notifyWant += class
	}
	res, err := s.global.ConfigGet(ctx, "notify-keyspace-events").Result()
	if err != nil {
		return false, fmt.Errorf("%s: config get: %w", op, err)
	}
	cur, ok := res["notify-keyspace-events"]
	if !ok {
		return false, fmt.Errorf("%s: server has no notify-keyspace-events", op)
	}
	want := cur
	if !strings.Contains(want, "K") {
		want += "K"
	}
	for _, c := range s.notifyWant {
		if !strings.ContainsAny(want, string(c)+"A") {
			want += string(c)
		}
	}
	if want == cur {
		return true, nil
	}
	if err := s.global.ConfigSet(ctx, "notify-keyspace-events", want).Err(); err != nil {
		return false, fmt.Errorf("%s: config set %q: %w", op, want, err)
	}
	return true, nil
}

// RunnerEvent is a queue push or a stop request seen on the runner's
// pub/sub connection.
type RunnerEvent struct {
	Stop       bool   // a stop request (MarkStop) for JobKey in DB
	DB         uint64 // context DB
	ScriptType string // queue:<ScriptType> got a job (when !Stop)
	JobKey     string // with Stop
	Attempt    int64  // with Stop: attempts up to this one are stopped
}

// RunnerEvents is an open subscription; Close ends it.
type RunnerEvents struct {
	ps   *redis.PubSub
	done chan struct{}
}

// Close ends the subscription and waits until the callback is no longer
// called.
func (e *RunnerEvents) Close() error {
	err := e.ps.Close()
	<-e.done
	return err
}

// SubscribeRunnerEvents opens one pub/sub connection carrying the queue
// keyspace notifications of every DB (pushes only) and the stop requests
// of StopChannel, and calls fn with each, in order, from one goroutine
// that reads the connection itself (fn must not block). go-redis
// reconnects and resubscribes when the server comes back; events sent
// meanwhile are lost, so callers also poll.
func (s *Queues) SubscribeRunnerEvents(ctx context.Context, fn func(RunnerEvent)) (*RunnerEvents, error) {
	ps := s.global.PSubscribe(ctx, queueEventPattern)
	if err := ps.Subscribe(ctx, StopChannel); err != nil {
		ps.Close()
		return nil, fmt.Errorf("store.SubscribeRunnerEvents: %w", err)
	}
	e := &RunnerEvents{ps: ps, done: make(chan struct{})}
	go func() {
		defer close(e.done)
		for {
			m, err := ps.ReceiveMessage(context.Background())
			if errors.Is(err, redis.ErrClosed) {
				return
			}
			if err != nil {
				time.Sleep(100 * time.Millisecond) // the next receive reconnects
				continue
			}
			if ev, ok := toRunnerEvent(m); ok {
				fn(ev)
			}
		}
	}()
	return e, nil
}

func toRunnerEvent(m *redis.Message) (RunnerEvent, bool) {
	if m.Channel == StopChannel {
		id, key, att, ok := ParseStopMessage(m.Payload)
		return RunnerEvent{Stop: true, DB: id, JobKey: key, Attempt: att}, ok
	}
	switch m.Payload {
	case "lpush", "rpush", "linsert":
	default:
		return RunnerEvent{}, false // pops and trims wake nobody
	}
	db, t, ok := ParseQueueEvent(m.Channel)
	return RunnerEvent{DB: db, ScriptType: t}, ok
}
