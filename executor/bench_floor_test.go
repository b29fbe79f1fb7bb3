package executor_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hyphae-run/hyphae/testkit/testredis"
)

// The floor benchmarks bound BenchmarkShTrue from below: the least work
// any runner must do per sh job under issue 3's contract, written by hand
// and nothing else — no leases or heartbeats, no Redis log list, no
// retries, timeouts or stop checks, no dead-letter parsing. A worker
// (concurrency 2) takes a job with BLMOVE into its processing list, reads
// its script and marks it started (one pipeline), creates the job
// directory and the script file, runs `sh <file>` in its own process
// group with a clean environment, stdout and stderr captured through
// pipes, reads the result file, then writes finished, pushes the reply
// and leaves the processing list in one pipeline. Submitters use the
// issue's raw cycle: HSET+LPUSH in one pipeline, then BLPOP the reply.
// If even the floor falls short of a target on this machine, no runner
// that keeps the contract can meet it here.

// floor is a hand-written minimal runner on one redis-server.
type floor struct {
	srv   *testredis.Server
	dir   string
	sh    string
	stdin *os.File
	async bool          // completion writes leave the worker's critical path
	done  chan struct{} // one per completed job, when counting
}

func newFloor(b *testing.B, async bool) *floor {
	b.Helper()
	f := &floor{srv: testredis.Start(b), dir: b.TempDir(), async: async}
	var err error
	if f.sh, err = exec.LookPath("sh"); err != nil {
		b.Fatal(err)
	}
	if f.stdin, err = os.Open(os.DevNull); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { f.stdin.Close() })
	return f
}

// start runs 2 workers until the returned stop is called.
func (f *floor) start() (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for w := range 2 {
		c := f.client()
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer c.Close()
			f.work(ctx, c, fmt.Sprintf("processing:floor%d", w))
		}()
	}
	return func() { cancel(); wg.Wait() }
}

func (f *floor) client() *redis.Client {
	return redis.NewClient(&redis.Options{Addr: f.srv.Addr, DB: 1})
}

func (f *floor) work(ctx context.Context, c *redis.Client, processing string) {
	var pending sync.WaitGroup
	defer pending.Wait()
	for ctx.Err() == nil {
		key, err := c.BLMove(ctx, "queue:sh", processing, "RIGHT", "LEFT", time.Second).Result()
		if err != nil {
			continue
		}
		var script *redis.StringCmd
		_, _ = c.Pipelined(ctx, func(p redis.Pipeliner) error {
			script = p.HGet(ctx, key, "script")
			p.HSet(ctx, key, "status", "started")
			return nil
		})
		out, code := floorRun(filepath.Join(f.dir, key[len("job:"):]), f.sh, script.Val(), f.stdin)
		finish := func() { f.finish(ctx, c, processing, key, out, code) }
		if !f.async {
			finish()
			continue
		}
		pending.Add(1)
		go func() { defer pending.Done(); finish() }()
	}
}

func (f *floor) finish(ctx context.Context, c *redis.Client, processing, key, out string, code int) {
	_, _ = c.Pipelined(ctx, func(p redis.Pipeliner) error {
		p.HSet(ctx, key, "status", "finished", "result", fmt.Sprintf(`{"exit_code":"%d","stdout":%q}`, code, out))
		p.LPush(ctx, "reply:"+key, "finished")
		p.LRem(ctx, processing, 1, key)
		return nil
	})
	if f.done != nil {
		f.done <- struct{}{}
	}
}

// floorRun is the process part of a job: directory, script file, process
// group, clean environment, captured output, result file.
func floorRun(jobDir, sh, script string, stdin *os.File) (string, int) {
	if err := os.Mkdir(jobDir, 0o700); err != nil {
		return err.Error(), -1
	}
	file := filepath.Join(jobDir, "script.sh")
	if err := os.WriteFile(file, []byte(script), 0o700); err != nil {
		return err.Error(), -1
	}
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(sh, file)
	cmd.Dir, cmd.Stdin, cmd.Stdout, cmd.Stderr = jobDir, stdin, &stdout, &stderr
	cmd.Env = []string{"PATH=/usr/local/bin:/usr/bin:/bin", "HYPHAE_JOB_ID=1", "HYPHAE_CONTEXT_ID=1",
		"HYPHAE_CALLER_ID=1", "HYPHAE_ATTEMPT=1", "HYPHAE_RESULT=" + filepath.Join(jobDir, "result")}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	_ = cmd.Run()
	_, _ = os.ReadFile(filepath.Join(jobDir, "result"))
	return stdout.String(), cmd.ProcessState.ExitCode()
}

// BenchmarkShFloor: the floor runner with BenchmarkShTrue's load — 4
// submitters, each enqueueing and waiting for one job at a time.
func BenchmarkShFloor(b *testing.B) {
	f := newFloor(b, false)
	defer f.start()()
	clients := make([]*redis.Client, 4)
	for w := range clients {
		clients[w] = f.client()
		defer clients[w].Close()
	}
	var lat latencies
	b.ResetTimer()
	t0 := time.Now()
	spread(b.N, len(clients), func(w, i int) {
		timed(&lat, func() {
			if err := rawSubmit(clients[w], fmt.Sprintf("job:1:%d", i), i, "sh", "true"); err != nil {
				b.Error(err)
			}
		})
	})
	lat.report(b, time.Since(t0))
}

// BenchmarkShFloorBacklog: the floor at its most generous — every job hash
// written before the clock starts, the queue filled in one pipeline, and
// completion writes off the workers' critical path. The runner's work
// alone, with no submitter waiting.
func BenchmarkShFloorBacklog(b *testing.B) {
	f := newFloor(b, true)
	f.done = make(chan struct{}, b.N)
	ctx := context.Background()
	c := f.client()
	defer c.Close()
	keys := make([]any, b.N)
	_, err := c.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i := range b.N {
			key := fmt.Sprintf("job:1:%d", i+1)
			keys[i] = key
			p.HSet(ctx, key, "id", i+1, "caller_id", 1, "script_type", "sh", "script", "true", "status", "dispatched")
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	defer f.start()()
	b.ResetTimer()
	t0 := time.Now()
	if err := c.LPush(ctx, "queue:sh", keys...).Err(); err != nil {
		b.Fatal(err)
	}
	for range b.N {
		<-f.done
	}
	b.ReportMetric(float64(b.N)/time.Since(t0).Seconds(), "jobs/s")
	b.ReportMetric(0, "ns/op")
}

// BenchmarkShFloorExec is the floor's process part alone, from 2
// goroutines and without Redis: job directory, script file, process group,
// clean environment, captured output, result file.
func BenchmarkShFloorExec(b *testing.B) {
	f := newFloor(b, false)
	var lat latencies
	b.ResetTimer()
	t0 := time.Now()
	spread(b.N, 2, func(_, i int) {
		timed(&lat, func() {
			if out, code := floorRun(filepath.Join(f.dir, fmt.Sprint(i)), f.sh, "true", f.stdin); code != 0 {
				b.Errorf("exit %d: %s", code, out)
			}
		})
	})
	lat.report(b, time.Since(t0))
}
