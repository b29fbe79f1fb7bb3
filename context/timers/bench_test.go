package timers_test

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hyphae-run/hyphae/context/store"
	"github.com/hyphae-run/hyphae/context/timers"
)

// BenchmarkTimers10k: 10,000 pending timers in one context, due from 5 s
// after they are added: one every half millisecond (spread) or all at
// the same millisecond (burst). It reports how late
// each reaches its queue (p50, p99, max: the pop time of a consumer
// blocked on the queue minus the due time) beside one Redis round trip
// (PING, median of 1000) measured in the same run, and the CPU the
// process (the timers) uses while 10,000 other timers wait an hour:
// idle_cpu_% over a 5 s window (getrusage), and the Redis commands the
// server ran meanwhile.
//
//	go test ./context/timers -run '^$' -bench Timers10k -benchtime 1x
func BenchmarkTimers10k(b *testing.B) {
	b.Run("spread", func(b *testing.B) { benchTimers(b, 500*time.Microsecond) })
	b.Run("burst", func(b *testing.B) { benchTimers(b, 0) })
}

func benchTimers(b *testing.B, every time.Duration) {
	for range b.N {
		st, srv := open(b)
		ctx := b.Context()
		rtt := pingRTT(b, st)
		tm := startB(b, st)
		// Idle: 10,000 timers an hour away.
		far := time.Now().Add(time.Hour)
		addTimers(b, st, "queue:idle", 10000, func(int) time.Time { return far })
		tm.Kick(1)
		cpu, cmds := idle(b, srv.Client(b, 0), 5*time.Second)
		// Firing: 10,000 timers due one every `every` (0: all at once).
		base := time.Now().Add(5 * time.Second)
		due := func(i int) time.Time { return base.Add(time.Duration(i) * every) }
		addTimers(b, st, "queue:sh", 10000, due)
		late := consume(ctx, b, srv.Client(b, 1), 10000, due)
		slices.Sort(late)
		q := func(p float64) float64 { return ms(late[int(p*float64(len(late)-1))]) }
		b.ReportMetric(q(0.5), "p50_late_ms")
		b.ReportMetric(q(0.99), "p99_late_ms")
		b.ReportMetric(ms(late[len(late)-1]), "max_late_ms")
		b.ReportMetric(ms(rtt), "redis_rtt_ms")
		b.ReportMetric(cpu, "idle_cpu_%")
		b.ReportMetric(cmds, "idle_redis_cmds/s")
	}
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func startB(b *testing.B, st *store.Store) *timers.Timers {
	tm, err := timers.New(timers.Config{Contexts: func(context.Context) ([]uint64, error) { return []uint64{1}, nil }}, st.Timing, nil)
	if err != nil {
		b.Fatal(err)
	}
	if err := tm.Start(b.Context()); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = tm.Shutdown(context.Background()) })
	return tm
}

func pingRTT(b *testing.B, st *store.Store) time.Duration {
	db, err := st.DB(1)
	if err != nil {
		b.Fatal(err)
	}
	rtts := make([]time.Duration, 1000)
	for i := range rtts {
		t0 := time.Now()
		if err := db.Ping(b.Context()).Err(); err != nil {
			b.Fatal(err)
		}
		rtts[i] = time.Since(t0)
	}
	slices.Sort(rtts)
	return rtts[len(rtts)/2]
}

func addTimers(b *testing.B, st *store.Store, list string, n int, due func(int) time.Time) {
	for i := range n {
		if err := st.Timing.AddTimer(b.Context(), 1, list, "job:1:"+strconv.Itoa(i), due(i)); err != nil {
			b.Fatal(err)
		}
	}
}

// idle measures this process's CPU time (user + system) over d, as a
// percentage of d, and the commands the Redis server processed per second
// meanwhile (the INFO calls themselves included).
func idle(b *testing.B, c *redis.Client, d time.Duration) (float64, float64) {
	cmds0, cpu0 := commands(b, c), cpuTime(b)
	t0 := time.Now()
	time.Sleep(d) // the measurement window: nothing to poll for
	cpu1, el, cmds1 := cpuTime(b), time.Since(t0), commands(b, c)
	return 100 * float64(cpu1-cpu0) / float64(el), float64(cmds1-cmds0) / el.Seconds()
}

func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func commands(b *testing.B, c *redis.Client) int64 {
	info, err := c.Info(b.Context(), "stats").Result()
	if err != nil {
		b.Fatal(err)
	}
	for _, l := range strings.Split(info, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(l), "total_commands_processed:"); ok {
			n, _ := strconv.ParseInt(v, 10, 64)
			return n
		}
	}
	b.Fatal("no total_commands_processed in INFO")
	return 0
}

// consume pops n entries job:1:<i> from queue:sh and returns how late
// each arrived after due(i). It blocks for the first entry and then takes
// what else is there in one RPOP of up to 1000, so its own round trips
// do not pile up on a burst.
func consume(ctx context.Context, b *testing.B, c *redis.Client, n int, due func(int) time.Time) []time.Duration {
	late := make([]time.Duration, 0, n)
	for len(late) < n {
		res, err := c.BRPop(ctx, time.Minute, "queue:sh").Result()
		if err != nil {
			b.Fatalf("after %d of %d: %v", len(late), n, err)
		}
		now := time.Now()
		keys := res[1:]
		more, err := c.RPopCount(ctx, "queue:sh", 1000).Result()
		if err != nil && !errors.Is(err, redis.Nil) {
			b.Fatal(err)
		}
		keys = append(keys, more...)
		for _, k := range keys {
			i, err := strconv.Atoi(strings.TrimPrefix(k, "job:1:"))
			if err != nil {
				b.Fatal(err)
			}
			late = append(late, now.Sub(due(i)))
		}
	}
	return late
}
