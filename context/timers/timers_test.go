package timers_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/store"
	"github.com/hyphae-run/hyphae/context/timers"
	"github.com/hyphae-run/hyphae/internal/poll"
	"github.com/hyphae-run/hyphae/testkit/testredis"
)

// clock is a clock the test moves.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time  { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) Set(t time.Time) { c.mu.Lock(); c.t = t; c.mu.Unlock() }

// rounds is a Firer that reports the latest round of the timers (it runs
// after the delayed jobs' firer) and keeps nothing due. An unread round is
// replaced, never kept in place of a later one: a reader waiting for the
// round at a time would otherwise read an older one and miss its own.
type rounds chan time.Time

func (r rounds) Fire(_ context.Context, _ uint64, now time.Time) (time.Time, error) {
	for {
		select {
		case r <- now:
			return time.Time{}, nil
		default:
			select {
			case <-r:
			default:
			}
		}
	}
}

func open(t testing.TB) (*store.Store, *testredis.Server) {
	t.Helper()
	srv := testredis.Start(t)
	st, err := store.Open(t.Context(), srv.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	if err := st.Registry.CreateContext(t.Context(), &model.Context{ID: 1}); err != nil {
		t.Fatal(err)
	}
	return st, srv
}

func start(t *testing.T, st *store.Store, cfg timers.Config) *timers.Timers {
	t.Helper()
	cfg.Contexts = func(context.Context) ([]uint64, error) { return []uint64{1}, nil }
	tm, err := timers.New(cfg, st.Timing, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := tm.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tm.Shutdown(context.Background()) })
	return tm
}

func await(t *testing.T, r rounds, at time.Time) {
	t.Helper()
	for {
		select {
		case now := <-r:
			if !now.Before(at) {
				return
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("no timer round at %v", at)
		}
	}
}

// A delayed job stays off its queue while the clock is before its time
// and is queued once the clock reaches it.
func TestDelayedJobQueuedWhenTheClockReachesIt(t *testing.T) {
	st, srv := open(t)
	t0 := time.Now()
	c := &clock{t: t0}
	r := make(rounds, 1)
	tm := start(t, st, timers.Config{Now: c.Now, MaxSleep: time.Hour, Firers: []timers.Firer{r}})
	j := &model.RunnerJob{CallerID: 1, ContextID: 1, Script: "true", ScriptType: "sh"}
	if _, err := st.Timing.EnqueueJobAt(t.Context(), j, t0.Add(time.Hour), t0); err != nil {
		t.Fatal(err)
	}
	db := srv.Client(t, 1)
	c.Set(t0.Add(time.Hour - time.Second))
	tm.Kick(1)
	await(t, r, c.Now())
	if n := db.LLen(t.Context(), "queue:sh").Val(); n != 0 {
		t.Fatalf("a second before its time the queue holds %d jobs", n)
	}
	c.Set(t0.Add(time.Hour))
	tm.Kick(1)
	await(t, r, c.Now())
	if q := db.LRange(t.Context(), "queue:sh", 0, -1).Val(); len(q) != 1 || q[0] != store.JobKey(1, j.ID) {
		t.Fatalf("on time the queue holds %v, want the job", q)
	}
}

// The goroutine sleeps (here up to an hour) until the earliest timer; a
// timer added earlier wakes it through the announcement, so it fires on
// time without polling.
func TestEarlierTimerWakesTheSleeper(t *testing.T) {
	st, srv := open(t)
	r := make(rounds, 1)
	start(t, st, timers.Config{MaxSleep: time.Hour, Firers: []timers.Firer{r}})
	await(t, r, time.Time{}) // the first round: nothing due, sleeping an hour
	now := time.Now()
	j := &model.RunnerJob{CallerID: 1, ContextID: 1, Script: "true", ScriptType: "sh"}
	if _, err := st.Timing.EnqueueJobAt(t.Context(), j, now.Add(200*time.Millisecond), now); err != nil {
		t.Fatal(err)
	}
	db := srv.Client(t, 1)
	poll.Eventually(t, 30*time.Second, "the delayed job on its queue", func() bool {
		return db.LLen(t.Context(), "queue:sh").Val() == 1
	})
}
