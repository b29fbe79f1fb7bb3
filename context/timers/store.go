package timers

import (
	"context"
	"time"

	"github.com/hyphae-run/hyphae/context/store"
)

// TimingStore is what the timers need of the store: its timers.
type TimingStore interface {
	FireDueTimers(ctx context.Context, ctxID uint64, now time.Time) (int, time.Time, error)
	SubscribeTimers(ctx context.Context, fn func(store.TimerEvent)) (*store.TimerEvents, error)
}
