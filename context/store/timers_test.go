package store_test

import (
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/store"
	"github.com/hyphae-run/hyphae/testkit/testredis"
)

// tmContext creates context 1 and returns its DB client.
func tmContext(t *testing.T, s *store.Store) {
	t.Helper()
	if err := s.Registry.CreateContext(ctCtx(t), &model.Context{ID: 1}); err != nil {
		t.Fatal(err)
	}
}

func tmJob() *model.RunnerJob {
	return &model.RunnerJob{CallerID: 1, ContextID: 1, Script: "true", ScriptType: "sh"}
}

// A job enqueued for later stays off its queue until its time (on the
// timers' clock), then is claimed and run once.
func TestEnqueueJobAtWaitsUntilDue(t *testing.T) {
	s, _ := ctOpen(t)
	tmContext(t, s)
	ctx := ctCtx(t)
	now := time.Now()
	at := now.Add(time.Hour)
	j := tmJob()
	waits, err := s.Timing.EnqueueJobAt(ctx, j, at, now)
	if err != nil || !waits {
		t.Fatalf("EnqueueJobAt: waits=%v err=%v, want it to wait", waits, err)
	}
	if cl, err := s.Queues.ClaimJob(ctx, 1, "r1", []string{"sh"}, time.Minute, false); err != nil || cl != nil {
		t.Fatalf("claim before its time: %+v, %v; want nothing", cl, err)
	}
	if n, next, err := s.Timing.FireDueTimers(ctx, 1, at.Add(-time.Second)); err != nil || n != 0 || next.UnixMilli() != at.UnixMilli() {
		t.Fatalf("fire a second early: fired %d, next %v, %v; want 0 and %v", n, next, err, at)
	}
	if n, next, err := s.Timing.FireDueTimers(ctx, 1, at); err != nil || n != 1 || !next.IsZero() {
		t.Fatalf("fire on time: fired %d, next %v, %v; want 1 and none left", n, next, err)
	}
	// The runner's own clock is still an hour behind run_at: the fired
	// timer lets it run anyway instead of putting it back.
	cl, err := s.Queues.ClaimJob(ctx, 1, "r1", []string{"sh"}, time.Minute, false)
	if err != nil || cl == nil || cl.JobKey != store.JobKey(1, j.ID) || cl.Verdict != store.VerdictRun {
		t.Fatalf("claim after firing: %+v, %v; want job %d to run", cl, err, j.ID)
	}
	if n, _, _ := s.Timing.FireDueTimers(ctx, 1, at.Add(time.Hour)); n != 0 {
		t.Fatalf("fired again: %d", n)
	}
}

// The raw Redis contract: a job hash with run_at in the future pushed on
// its queue is not run early; the claim moves it to the timers and takes
// the next job instead.
func TestRawQueuedJobWithRunAtWaits(t *testing.T) {
	s, srv := ctOpen(t)
	tmContext(t, s)
	ctx := ctCtx(t)
	c := srv.Client(t, 1)
	later := time.Now().Add(time.Hour).Unix()
	c.HSet(ctx, "job:9:1", "id", "1", "caller_id", "9", "context_id", "1", "script", "true",
		"script_type", "sh", "status", "dispatched", "run_at", later)
	c.HSet(ctx, "job:9:2", "id", "2", "caller_id", "9", "context_id", "1", "script", "true",
		"script_type", "sh", "status", "dispatched", "run_at", time.Now().Add(-time.Minute).Unix())
	c.LPush(ctx, "queue:sh", "job:9:1", "job:9:2") // job:9:1 is taken first
	cl, err := s.Queues.ClaimJob(ctx, 1, "r1", []string{"sh"}, time.Minute, false)
	if err != nil || cl == nil || cl.JobKey != "job:9:2" {
		t.Fatalf("claim: %+v, %v; want job:9:2 (job:9:1 is not due)", cl, err)
	}
	if cl, err := s.Queues.ClaimJob(ctx, 1, "r1", []string{"sh"}, time.Minute, false); err != nil || cl != nil {
		t.Fatalf("second claim: %+v, %v; want nothing", cl, err)
	}
	if p := c.LRange(ctx, store.ProcessingKey("r1"), 0, -1).Val(); len(p) != 1 || p[0] != "job:9:2" {
		t.Fatalf("processing list %v, want only job:9:2", p)
	}
	next, err := s.Timing.NextTimer(ctx, 1)
	if err != nil || next.Unix() != later {
		t.Fatalf("next timer %v, %v; want %d", next, err, later)
	}
	if st := c.HGet(ctx, "job:9:1", "status").Val(); st != "dispatched" {
		t.Fatalf("waiting job's status %q, want dispatched", st)
	}
}

// Two agents firing one context's timers at once push each entry once.
func TestFireDueTimersOnceWithTwoFirers(t *testing.T) {
	s, srv := ctOpen(t)
	tmContext(t, s)
	s2, err := store.Open(ctCtx(t), srv.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	ctx := ctCtx(t)
	now := time.Now()
	const n = 1200 // more than one batch
	for i := range n {
		if err := s.Timing.AddTimer(ctx, 1, "queue:sh", "job:1:"+itoa(i+1), now.Add(time.Duration(i)*time.Millisecond)); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	fired := make([]int, 2)
	for k, st := range []*store.Store{s, s2} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f, _, err := st.Timing.FireDueTimers(ctx, 1, now.Add(time.Hour))
			if err != nil {
				t.Error(err)
			}
			fired[k] = f
		}()
	}
	wg.Wait()
	q := srv.Client(t, 1).LRange(ctx, "queue:sh", 0, -1).Val()
	seen := map[string]bool{}
	for _, k := range q {
		if seen[k] {
			t.Fatalf("%s pushed twice", k)
		}
		seen[k] = true
	}
	if len(q) != n || fired[0]+fired[1] != n {
		t.Fatalf("queue holds %d, fired %v; want %d in all", len(q), fired, n)
	}
}

// Timers are data in Redis: they outlive a kill -9 of redis-server (the
// agent's server keeps an append-only file, as here).
func TestTimersSurviveRedisKill(t *testing.T) {
	s, srv := ctOpen(t, testredis.Options{AOF: true})
	tmContext(t, s)
	ctx := ctCtx(t)
	now := time.Now()
	j := tmJob()
	if _, err := s.Timing.EnqueueJobAt(ctx, j, now.Add(time.Minute), now); err != nil {
		t.Fatal(err)
	}
	srv.Kill()
	srv.Restart(t, testredis.Options{AOF: true})
	var next time.Time
	ctEventually(t, "the store to reconnect", func() bool {
		var err error
		next, err = s.Timing.NextTimer(ctx, 1)
		return err == nil
	})
	if next.UnixMilli() != now.Add(time.Minute).UnixMilli() {
		t.Fatalf("after the kill the next timer is %v, want %v", next, now.Add(time.Minute))
	}
	if n, _, err := s.Timing.FireDueTimers(ctx, 1, now.Add(time.Minute)); err != nil || n != 1 {
		t.Fatalf("fired %d, %v; want 1", n, err)
	}
}

// A timer earlier than every other one is announced, so the context's
// timer can sleep until then; the announcement names context and time.
func TestSubscribeTimersAnnouncesTheEarliest(t *testing.T) {
	s, _ := ctOpen(t)
	tmContext(t, s)
	ctx := ctCtx(t)
	got := make(chan store.TimerEvent, 8)
	ev, err := s.Timing.SubscribeTimers(ctx, func(e store.TimerEvent) { got <- e })
	if err != nil {
		t.Fatal(err)
	}
	defer ev.Close()
	base := time.Now().Add(time.Hour)
	for _, d := range []time.Duration{10 * time.Second, 20 * time.Second, 5 * time.Second} {
		if err := s.Timing.AddTimer(ctx, 1, "queue:sh", "job:1:"+itoa(int(d/time.Second)), base.Add(d)); err != nil {
			t.Fatal(err)
		}
	}
	for _, want := range []time.Duration{10 * time.Second, 5 * time.Second} {
		select {
		case e := <-got:
			if e.CtxID != 1 || e.Due.UnixMilli() != base.Add(want).UnixMilli() {
				t.Fatalf("event %+v, want context 1 due %v", e, base.Add(want))
			}
		case <-ctx.Done():
			t.Fatal("no event")
		}
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

// Stopping a delayed job takes it out of the timers (TakeQueued, as for a
// queued job), so it ends now instead of when it was due.
func TestTakeQueuedTakesAWaitingJob(t *testing.T) {
	s, _ := ctOpen(t)
	tmContext(t, s)
	ctx := ctCtx(t)
	now := time.Now()
	j := tmJob()
	if _, err := s.Timing.EnqueueJobAt(ctx, j, now.Add(time.Hour), now); err != nil {
		t.Fatal(err)
	}
	key := store.JobKey(j.CallerID, j.ID)
	if _, ok, err := s.Queues.TakeQueued(ctx, 1, key, "sh", "r1", 1, time.Minute); err != nil || !ok {
		t.Fatalf("take the waiting job: %v %v", ok, err)
	}
	if next, err := s.Timing.NextTimer(ctx, 1); err != nil || !next.IsZero() {
		t.Fatalf("timers after the take: next %v, %v; want none", next, err)
	}
	if n, _, _ := s.Timing.FireDueTimers(ctx, 1, now.Add(2*time.Hour)); n != 0 {
		t.Fatalf("the taken job fired later: %d", n)
	}
}
