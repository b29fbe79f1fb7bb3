package store_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// redisLog collects what go-redis logs.
type redisLog struct {
	mu    sync.Mutex
	lines []string
}

func (l *redisLog) Printf(_ context.Context, format string, v ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, fmt.Sprintf(format, v...))
}

// A hero worker waits on its queues half a second at a time, twice per
// second: the wait must reach Redis as it is, not be rounded up to 1s by
// go-redis with a warning in the agent's log each time (runner.worker_id
// flooded the log with "truncating to 1s").
func TestHeroWaitsUnderASecondWithoutWarnings(t *testing.T) {
	s, _ := ctOpen(t)
	ctx := ctCtx(t)
	log := &redisLog{}
	redis.SetLogger(log)
	t.Cleanup(func() { redis.SetLogger(discardLog{}) })
	for range 2 {
		if id, err := s.Queues.HeroNext(ctx, "w1", 200*time.Millisecond); err != nil || id != "" {
			t.Fatalf("HeroNext on an empty queue = %q, %v", id, err)
		}
		if id, err := s.Queues.HeroNextStop(ctx, "w1", 200*time.Millisecond); err != nil || id != "" {
			t.Fatalf("HeroNextStop on an empty queue = %q, %v", id, err)
		}
	}
	log.mu.Lock()
	defer log.mu.Unlock()
	for _, l := range log.lines {
		if strings.Contains(l, "truncating") {
			t.Fatalf("go-redis warned: %s", l)
		}
	}
}

type discardLog struct{}

func (discardLog) Printf(context.Context, string, ...any) {}
