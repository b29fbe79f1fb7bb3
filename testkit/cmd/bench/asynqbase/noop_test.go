package asynqbase

import (
	"context"
	"os/exec"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"
)

// BenchmarkAsynqNoop: noop tasks through asynq, 4 submitters, each
// enqueueing a task and waiting for its handler to run before the next
// (the handler tells it in process: no Redis round trip for the reply,
// which favours asynq). The worker polls its queue every 1 ms when empty
// (TaskCheckInterval), concurrency as asynq defaults it (one per CPU).
// The window's cost is all of it, background loops included, as for our
// agent in testkit/e2e's BenchmarkLeanNoopJobs. Metrics:
//
//   - jobs/s: tasks completed over wall time.
//   - redis-cmds/op: Redis commands per task (INFO stats), less the
//     client's own (client-cmds/op, measured by enqueueing on the same
//     server with no worker, before the window).
//   - redis-cpu-µs/op, self-cpu-µs/op: redis-server's and this process's
//     (submitters and worker) CPU per task.
//   - keys/op: keys kept per completed task, a second after the window.
func BenchmarkAsynqNoop(b *testing.B) { asynqJobs(b, nil) }

// BenchmarkAsynqShTrue: BenchmarkAsynqNoop with a handler that runs
// `sh -c true` (os/exec) before it answers, as our runner runs an sh job
// whose script is true (BenchmarkLeanShTrue).
func BenchmarkAsynqShTrue(b *testing.B) {
	asynqJobs(b, func() error { return exec.Command("sh", "-c", "true").Run() })
}

// asynqJobs runs BenchmarkAsynqNoop's window, the handler calling work
// first when it is not nil.
func asynqJobs(b *testing.B, work func() error) {
	ctx := context.Background()
	srv := startServer(b)
	rc := srv.client(0)
	defer rc.Close()
	opt := asynq.RedisClientOpt{Network: "unix", Addr: srv.sock}
	client := asynq.NewClient(opt)
	defer client.Close()
	clientCmds := clientCost(b, client, rc)

	const submitters = 4
	done := make([]chan struct{}, submitters)
	for i := range done {
		done[i] = make(chan struct{}, 1)
	}
	mux := asynq.NewServeMux()
	mux.HandleFunc("noop", func(_ context.Context, t *asynq.Task) error {
		var err error
		if work != nil {
			err = work()
		}
		done[t.Payload()[0]] <- struct{}{}
		return err
	})
	w := asynq.NewServer(opt, asynq.Config{TaskCheckInterval: time.Millisecond, LogLevel: asynq.ErrorLevel})
	if err := w.Start(mux); err != nil {
		b.Fatal(err)
	}
	defer w.Shutdown()
	submit := func(s int) {
		if _, err := client.Enqueue(asynq.NewTask("noop", []byte{byte(s)}), asynq.MaxRetry(0)); err != nil {
			b.Error(err)
			return
		}
		<-done[s]
	}
	spread(20, submitters, func(s, _ int) { submit(s) }) // warm

	u0, err := sample(ctx, rc)
	if err != nil {
		b.Fatal(err)
	}
	self0 := selfCPU()
	b.ResetTimer()
	start := time.Now()
	spread(b.N, submitters, func(s, _ int) { submit(s) })
	el := time.Since(start)
	b.StopTimer()
	self := selfCPU() - self0
	u1, err := sample(ctx, rc)
	if err != nil {
		b.Fatal(err)
	}
	time.Sleep(time.Second) // asynq marks a task done after its handler returns
	u2, err := sample(ctx, rc)
	if err != nil {
		b.Fatal(err)
	}
	d := u1.sub(u0)
	n := float64(b.N)
	b.ReportMetric(n/el.Seconds(), "jobs/s")
	b.ReportMetric(float64(d.commands)/n-clientCmds, "redis-cmds/op")
	b.ReportMetric(clientCmds, "client-cmds/op")
	b.ReportMetric(float64(d.cpu.Microseconds())/n, "redis-cpu-µs/op")
	b.ReportMetric(float64(self.Microseconds())/n, "self-cpu-µs/op")
	b.ReportMetric(float64(u2.keys-u0.keys)/n, "keys/op")
	b.ReportMetric(0, "ns/op")
	b.Logf("commands during the window, per second: %s", d.top(el))
}

// clientCost is the Redis commands one Enqueue costs on its own: 200
// enqueues with no worker, after a first that creates the queue. The
// server is flushed after, before any worker starts.
func clientCost(b *testing.B, client *asynq.Client, rc *redis.Client) float64 {
	ctx := context.Background()
	const n = 200
	task := asynq.NewTask("noop", []byte{0})
	if _, err := client.Enqueue(task); err != nil {
		b.Fatal(err)
	}
	u0, err := sample(ctx, rc)
	if err != nil {
		b.Fatal(err)
	}
	for range n {
		if _, err := client.Enqueue(task); err != nil {
			b.Fatal(err)
		}
	}
	u1, err := sample(ctx, rc)
	if err != nil {
		b.Fatal(err)
	}
	if err := rc.FlushAll(ctx).Err(); err != nil {
		b.Fatal(err)
	}
	return float64(u1.sub(u0).commands) / n
}

// spread runs jobs 1..n on the given number of goroutines (submitter 0,
// 1, …), each taking the next as it finishes one.
func spread(n, workers int, job func(worker, i int)) {
	var wg sync.WaitGroup
	next := make(chan int)
	for w := range workers {
		wg.Go(func() {
			for i := range next {
				job(w, i)
			}
		})
	}
	for i := 1; i <= n; i++ {
		next <- i
	}
	close(next)
	wg.Wait()
}

// selfCPU is this process's CPU so far, user + system.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
