package scheduler_test

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/scheduler"
	"github.com/hyphae-run/hyphae/scheduler/flowfile"
)

// schedClock is a clock the test moves.
type schedClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *schedClock) Now() time.Time      { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *schedClock) Set(t time.Time)     { c.mu.Lock(); c.t = t; c.mu.Unlock() }
func at(h, m, s int) time.Time            { return time.Date(2027, 3, 10, h, m, s, 0, time.UTC) }
func (c *schedClock) Add(d time.Duration) { c.Set(c.Now().Add(d)) }

// nightly is a flow scheduled every day at 03:00 UTC.
func nightly(extra string) string {
	return `name: nightly
schedule:
  cron: '0 3 * * *'
  timezone: UTC
` + extra + `
jobs:
  backup: {type: sh, script: 'echo "name=snap" >> "$HYPHAE_RESULT"'}
`
}

// addSchedule starts a scheduler on clock c and adds text's schedule.
func addSchedule(t *testing.T, e *env, c *schedClock, text string) *scheduler.Scheduler {
	t.Helper()
	cfg := e.config()
	cfg.Now = c.Now
	s := e.sched(t, cfg)
	f, _, err := flowfile.Parse([]byte(text), "nightly.yaml", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	f.Context = ctxID
	if _, err := s.AddSchedule(e.ctx, f, 1); err != nil {
		t.Fatal(err)
	}
	return s
}

func view(t *testing.T, e *env, s *scheduler.Scheduler) *scheduler.ScheduleView {
	t.Helper()
	v, err := s.Schedule(e.ctx, ctxID, "nightly")
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func fire(t *testing.T, e *env, s *scheduler.Scheduler, now time.Time) {
	t.Helper()
	if _, err := s.FireSchedules(e.ctx, ctxID, now); err != nil {
		t.Fatal(err)
	}
}

// A schedule starts one run at its tick, none before, and never a second
// one for the same tick: not when fired again, not from a restarted
// scheduler, not from two schedulers racing on one Redis.
func TestScheduleRunsOncePerTick(t *testing.T) {
	e := newEnv(t, 0)
	c := &schedClock{t: at(2, 0, 0)}
	s := addSchedule(t, e, c, nightly("  overlap: allow")) // no runner here: runs never end
	if v := view(t, e, s); v.NextTick != at(3, 0, 0).Unix() {
		t.Fatalf("next tick %v, want 03:00", time.Unix(v.NextTick, 0).UTC())
	}
	fire(t, e, s, at(2, 59, 59))
	if v := view(t, e, s); v.Runs != 0 {
		t.Fatalf("ran before its tick: %+v", v)
	}
	fire(t, e, s, at(3, 0, 0).Add(500*time.Millisecond))
	v := view(t, e, s)
	if v.Runs != 1 || v.LastFlow == 0 || v.LastTick != at(3, 0, 0).Unix() {
		t.Fatalf("after the tick: %+v, want one run", v)
	}
	st, err := s.Status(e.ctx, ctxID, v.LastFlow)
	if err != nil || st.Name != "nightly" {
		t.Fatalf("the run: %+v, %v", st, err)
	}
	fire(t, e, s, at(3, 0, 1))
	s2 := e.sched(t, scheduler.Config{Self: "x", LocalTypes: e.config().LocalTypes, Contexts: e.config().Contexts, Now: c.Now})
	fire(t, e, s2, at(3, 0, 2))
	if v := view(t, e, s); v.Runs != 1 {
		t.Fatalf("fired again (or by a restarted scheduler): %+v", v)
	}
	// The next day both schedulers fire at once: still one run.
	var wg sync.WaitGroup
	for _, x := range []*scheduler.Scheduler{s, s2} {
		wg.Add(1)
		go func() { defer wg.Done(); _, _ = x.FireSchedules(e.ctx, ctxID, at(3, 0, 1).Add(24*time.Hour)) }()
	}
	wg.Wait()
	if v := view(t, e, s); v.Runs != 2 {
		t.Fatalf("two schedulers racing: %+v, want 2 runs in all", v)
	}
	fl, err := s.List(e.ctx, ctxID)
	if err != nil || len(fl) != 2 {
		t.Fatalf("flows %d (%v), want 2", len(fl), err)
	}
}

// After downtime a missed tick is skipped by default and run once with
// catch_up: run_once; either way the schedule goes on from the next tick.
func TestScheduleCatchUp(t *testing.T) {
	for policy, runs := range map[string]int64{"": 0, "  catch_up: run_once": 1} {
		e := newEnv(t, 0)
		c := &schedClock{t: at(2, 0, 0)}
		s := addSchedule(t, e, c, nightly(policy))
		fire(t, e, s, at(5, 0, 0).Add(48*time.Hour)) // down for two days and two hours
		v := view(t, e, s)
		if v.Runs != runs || v.Skipped != 3-runs || v.NextTick != at(3, 0, 0).Add(72*time.Hour).Unix() {
			t.Errorf("catch_up %q: %+v, want %d run(s), %d skipped, next in three days at 03:00", policy, v, runs, 3-runs)
		}
	}
}

// overlap: skip starts nothing while the previous run goes on; allow starts
// another; cancel_previous cancels it first.
func TestScheduleOverlap(t *testing.T) {
	for _, policy := range []string{"skip", "allow", "cancel_previous"} {
		e := newEnv(t, 0) // no runner: a run never ends by itself
		c := &schedClock{t: at(2, 0, 0)}
		s := addSchedule(t, e, c, nightly("  overlap: "+policy))
		fire(t, e, s, at(3, 0, 0))
		first := view(t, e, s).LastFlow
		fire(t, e, s, at(3, 0, 0).Add(24*time.Hour))
		v := view(t, e, s)
		st, err := s.Status(e.ctx, ctxID, first)
		if err != nil {
			t.Fatal(err)
		}
		switch policy {
		case "skip":
			if v.Runs != 1 || v.Skipped != 1 || v.LastFlow != first {
				t.Errorf("skip: %+v", v)
			}
		case "allow":
			if v.Runs != 2 || v.LastFlow == first || st.Status.Terminal() {
				t.Errorf("allow: %+v, first run %s", v, st.Status)
			}
		case "cancel_previous":
			if v.Runs != 2 || v.LastFlow == first || st.Status != model.FlowError || !strings.Contains(st.Error, "cancel") {
				t.Errorf("cancel_previous: %+v, first run %s %q", v, st.Status, st.Error)
			}
		}
	}
}

// A paused schedule does not fire; resumed, it fires from its next tick
// after now; removed, it is gone.
func TestSchedulePauseResumeRemove(t *testing.T) {
	e := newEnv(t, 0)
	c := &schedClock{t: at(2, 0, 0)}
	s := addSchedule(t, e, c, nightly(""))
	if v, err := s.PauseSchedule(e.ctx, ctxID, "nightly"); err != nil || !v.Paused || v.NextTick != 0 {
		t.Fatalf("pause: %+v, %v", v, err)
	}
	fire(t, e, s, at(3, 0, 0))
	if v := view(t, e, s); v.Runs != 0 {
		t.Fatalf("a paused schedule ran: %+v", v)
	}
	c.Set(at(4, 0, 0))
	v, err := s.ResumeSchedule(e.ctx, ctxID, "nightly")
	if err != nil || v.Paused || v.NextTick != at(3, 0, 0).Add(24*time.Hour).Unix() {
		t.Fatalf("resume: %+v, %v; want next tomorrow 03:00", v, err)
	}
	if err := s.RemoveSchedule(e.ctx, ctxID, "nightly"); err != nil {
		t.Fatal(err)
	}
	if l, err := s.Schedules(e.ctx, ctxID); err != nil || len(l) != 0 {
		t.Fatalf("after remove: %v, %v", l, err)
	}
}
