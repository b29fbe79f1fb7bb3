package asynqbase

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/hibiken/asynq"
)

// workerEnv, when set to a redis socket, makes this test binary an idle
// asynq worker on it (runWorker) instead of running tests.
const workerEnv = "ASYNQBASE_WORKER"

func TestMain(m *testing.M) {
	if sock := os.Getenv(workerEnv); sock != "" {
		os.Exit(runWorker(sock))
	}
	os.Exit(m.Run())
}

// runWorker serves noop tasks with asynq's defaults (a 1 s poll when the
// queues are empty) until SIGTERM.
func runWorker(sock string) int {
	w := asynq.NewServer(asynq.RedisClientOpt{Network: "unix", Addr: sock}, asynq.Config{LogLevel: asynq.ErrorLevel})
	mux := asynq.NewServeMux()
	mux.HandleFunc("noop", func(context.Context, *asynq.Task) error { return nil })
	if err := w.Start(mux); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, os.Interrupt)
	<-sig
	w.Shutdown()
	return 0
}

// idleSeconds is the idle window, HYPHAE_BENCH_IDLE_SECONDS (default 10),
// as testkit/e2e's BenchmarkIdleAgent reads it.
func idleSeconds(tb testing.TB) time.Duration {
	s := os.Getenv("HYPHAE_BENCH_IDLE_SECONDS")
	if s == "" {
		return 10 * time.Second
	}
	n, err := strconv.ParseFloat(s, 64)
	if err != nil || n <= 0 {
		tb.Fatalf("HYPHAE_BENCH_IDLE_SECONDS=%q: want seconds", s)
	}
	return time.Duration(n * float64(time.Second))
}

// BenchmarkAsynqIdle: an asynq worker process (this binary again, asynq's
// default config) on its own redis-server, left idle: after 3 s to settle,
// over HYPHAE_BENCH_IDLE_SECONDS it reports the worker's CPU
// (proc-cpu-%, of one CPU), its redis-server's (redis-cpu-%), Redis
// commands/s (redis-cmds/s, the meter's own INFO taken out), the worker's
// RSS (rss-MiB) and redis-server's start-up, exec → PONG
// (redis-startup-ms). It logs which commands those are.
func BenchmarkAsynqIdle(b *testing.B) {
	ctx := context.Background()
	win := idleSeconds(b)
	srv := startServer(b)
	rc := srv.client(0)
	defer rc.Close()
	rpid, err := redisPID(ctx, rc)
	if err != nil {
		b.Fatal(err)
	}
	w := exec.Command(os.Args[0])
	w.Env = append(os.Environ(), workerEnv+"="+srv.sock)
	w.Stdout, w.Stderr = os.Stderr, os.Stderr
	if err := w.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() { _ = w.Process.Signal(syscall.SIGTERM); _ = w.Wait() }()
	time.Sleep(3 * time.Second)
	b.ResetTimer()
	u0, err := sample(ctx, rc)
	if err != nil {
		b.Fatal(err)
	}
	c0, r0, t0 := procCPU(w.Process.Pid), procCPU(rpid), time.Now()
	time.Sleep(win)
	c1, r1, el := procCPU(w.Process.Pid), procCPU(rpid), time.Since(t0)
	u1, err := sample(ctx, rc)
	if err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	d := u1.sub(u0)
	pct := func(d time.Duration) float64 { return 100 * d.Seconds() / el.Seconds() }
	b.ReportMetric(pct(c1-c0), "proc-cpu-%")
	b.ReportMetric(pct(r1-r0), "redis-cpu-%")
	b.ReportMetric(pct(d.cpu), "redis-info-cpu-%")
	b.ReportMetric(float64(d.commands)/el.Seconds(), "redis-cmds/s")
	b.ReportMetric(rssMiB(w.Process.Pid), "rss-MiB")
	b.ReportMetric(float64(srv.Startup.Microseconds())/1000, "redis-startup-ms")
	b.ReportMetric(0, "ns/op")
	b.Logf("idle asynq worker over %v: %s", el.Round(time.Millisecond), d.top(el))
}
