package scheduler_test

import (
	"context"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/hyphae-run/hyphae/context/store"
	"github.com/hyphae-run/hyphae/context/timers"
	"github.com/hyphae-run/hyphae/scheduler/flowfile"
)

// BenchmarkScheduleTickDelay: a schedule that fires every second, run by
// the agent's timers on the real clock. It reports how long after its
// tick each run's first job is on its queue (p50, max over 10 ticks):
// the timer's wake-up, the tick's record, creating and starting the flow.
//
//	go test ./scheduler -run '^$' -bench ScheduleTickDelay -benchtime 1x
func BenchmarkScheduleTickDelay(b *testing.B) {
	for range b.N {
		e := newEnv(b, 0)
		s := e.sched(b, e.config())
		f, _, err := flowfile.Parse([]byte("name: tick\ncontext: 1\nschedule: {cron: '* * * * * *', overlap: allow}\n"+
			"jobs:\n  a: {type: sh, script: 'true'}\n"), "tick.yaml", b.TempDir())
		if err != nil {
			b.Fatal(err)
		}
		tm, err := timers.New(timers.Config{Contexts: e.config().Contexts,
			Firers: []timers.Firer{timers.FirerFunc(s.FireSchedules)}}, e.st.Timing, nil)
		if err != nil {
			b.Fatal(err)
		}
		if err := tm.Start(e.ctx); err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { _ = tm.Shutdown(context.Background()) })
		if _, err := s.AddSchedule(e.ctx, f, 1); err != nil {
			b.Fatal(err)
		}
		delays := tickDelays(b, e, 10)
		slices.Sort(delays)
		b.ReportMetric(ms(delays[len(delays)/2]), "p50_start_ms")
		b.ReportMetric(ms(delays[len(delays)-1]), "max_start_ms")
	}
}

// tickDelays pops n scheduled jobs and returns, for each, the time from
// its tick (HYPHAE_SCHEDULE_TICK) to its arrival on the queue.
func tickDelays(b *testing.B, e *env, n int) []time.Duration {
	db := e.srv.Client(b, ctxID)
	var out []time.Duration
	for len(out) < n {
		res, err := db.BRPop(e.ctx, time.Minute, store.QueueKey("sh")).Result()
		if err != nil {
			b.Fatal(err)
		}
		now := time.Now()
		j, err := e.st.Jobs.LoadJobKey(e.ctx, ctxID, res[1])
		if err != nil {
			b.Fatal(err)
		}
		tick, _ := strconv.ParseInt(j.EnvVars[flowfile.EnvScheduleTick], 10, 64)
		out = append(out, now.Sub(time.Unix(tick, 0)))
	}
	return out
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
