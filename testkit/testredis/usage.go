package testredis

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// Usage is the work a redis-server has done since it started: commands
// processed and CPU time (user + system), from INFO. Benchmarks take it
// before and after a measured window to attribute Redis cost per
// operation. Sample through one long-lived client (Server.Client) so that
// each sample costs exactly one command (INFO) and no connection set-up.
type Usage struct {
	Commands int64
	CPU      time.Duration
}

// Sub is the work done between two samples.
func (u Usage) Sub(v Usage) Usage { return Usage{u.Commands - v.Commands, u.CPU - v.CPU} }

// UsageOf samples the INFO stats and cpu sections of c's server.
func UsageOf(ctx context.Context, c *redis.Client) (Usage, error) {
	info, err := c.Info(ctx, "stats", "cpu").Result()
	if err != nil {
		return Usage{}, fmt.Errorf("testredis: INFO: %w", err)
	}
	var u Usage
	for _, line := range strings.Split(info, "\n") {
		k, v, ok := strings.Cut(strings.TrimSpace(line), ":")
		if !ok {
			continue
		}
		switch k {
		case "total_commands_processed":
			u.Commands, _ = strconv.ParseInt(v, 10, 64)
		case "used_cpu_user", "used_cpu_sys":
			f, _ := strconv.ParseFloat(v, 64)
			u.CPU += time.Duration(f * float64(time.Second))
		}
	}
	return u, nil
}

// Meter measures what a benchmark window costs: the commands and CPU of
// some redis-servers, and this process's CPU — its own and that of the
// children it has reaped (job processes), from getrusage.
type Meter struct {
	clients []*redis.Client
	r0      Usage
	self0   time.Duration
	kids0   time.Duration
	t0      time.Time
}

// Cost is one window's cost.
type Cost struct {
	Redis    Usage         // summed over the servers
	Self     time.Duration // this process, user + system
	Children time.Duration // reaped children, user + system
	Elapsed  time.Duration
}

// NewMeter watches servers through one long-lived client each.
func NewMeter(tb testing.TB, servers ...*Server) *Meter {
	m := &Meter{}
	for _, s := range servers {
		m.clients = append(m.clients, s.Client(tb, 0))
	}
	return m
}

// Start opens a window.
func (m *Meter) Start(ctx context.Context) error {
	u, err := m.sample(ctx)
	if err != nil {
		return err
	}
	m.r0, m.t0 = u, time.Now()
	m.self0, m.kids0 = rusage(syscall.RUSAGE_SELF), rusage(syscall.RUSAGE_CHILDREN)
	return nil
}

// Stop closes the window and returns its cost, without the INFO commands
// the meter itself sent.
func (m *Meter) Stop(ctx context.Context) (Cost, error) {
	self, kids, el := rusage(syscall.RUSAGE_SELF), rusage(syscall.RUSAGE_CHILDREN), time.Since(m.t0)
	u, err := m.sample(ctx)
	if err != nil {
		return Cost{}, err
	}
	d := u.Sub(m.r0)
	d.Commands -= int64(len(m.clients)) // Start's INFO on each server
	return Cost{Redis: d, Self: self - m.self0, Children: kids - m.kids0, Elapsed: el}, nil
}

func (m *Meter) sample(ctx context.Context) (Usage, error) {
	var total Usage
	for _, c := range m.clients {
		u, err := UsageOf(ctx, c)
		if err != nil {
			return Usage{}, err
		}
		total.Commands += u.Commands
		total.CPU += u.CPU
	}
	return total, nil
}

// Without subtracts background work measured by an idle window bg, scaled
// to c's length: what the measured operations cost on their own.
func (c Cost) Without(bg Cost) Cost {
	if bg.Elapsed <= 0 {
		return c
	}
	k := float64(c.Elapsed) / float64(bg.Elapsed)
	scale := func(d time.Duration) time.Duration { return time.Duration(float64(d) * k) }
	return Cost{
		Redis:    Usage{c.Redis.Commands - int64(float64(bg.Redis.Commands)*k), c.Redis.CPU - scale(bg.Redis.CPU)},
		Self:     c.Self - scale(bg.Self),
		Children: c.Children - scale(bg.Children),
		Elapsed:  c.Elapsed,
	}
}

// Report adds per-operation metrics for n operations to b: redis-cmds/op,
// redis-cpu-µs/op, self-cpu-µs/op and, when any, child-cpu-µs/op.
func (c Cost) Report(b *testing.B, n int) {
	per := func(d time.Duration) float64 { return float64(d.Microseconds()) / float64(n) }
	b.ReportMetric(float64(c.Redis.Commands)/float64(n), "redis-cmds/op")
	b.ReportMetric(per(c.Redis.CPU), "redis-cpu-µs/op")
	b.ReportMetric(per(c.Self), "self-cpu-µs/op")
	if c.Children > 0 {
		b.ReportMetric(per(c.Children), "child-cpu-µs/op")
	}
}

func rusage(who int) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(who, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
