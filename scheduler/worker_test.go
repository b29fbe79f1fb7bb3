package scheduler_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/store"
	"github.com/hyphae-run/hyphae/testkit/testredis"
)

// worker plays the local runner in tests: it takes jobs from queue:<type>
// of one context, runs sh scripts for real (type "noop": nothing), writes
// the result with store.CompleteJob and requeues failures that have
// retries left, as the real runner does.
type worker struct {
	st    *store.Store
	rdb   *redis.Client
	ctxID uint64
	types []string
	dir   string

	mu      sync.Mutex
	runs    map[string]int                // guarded by mu: executions per job name
	byKey   map[string]int                // guarded by mu: executions per job key
	running map[string]context.CancelFunc // guarded by mu: job key → kill
	stopped map[string]bool               // guarded by mu: job keys asked to stop
	runTime time.Duration                 // guarded by mu: total time inside jobs

	cancel context.CancelFunc
	wg     sync.WaitGroup
}

func startWorker(tb testing.TB, srv *testredis.Server, ctxID uint64, n int, types ...string) *worker {
	tb.Helper()
	st, err := store.Open(context.Background(), srv.URL, nil)
	if err != nil {
		tb.Fatalf("worker store: %v", err)
	}
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr, DB: int(ctxID), PoolSize: n + 2, ContextTimeoutEnabled: true})
	ctx, cancel := context.WithCancel(context.Background())
	w := &worker{st: st, rdb: rdb, ctxID: ctxID, types: types, dir: tb.TempDir(), cancel: cancel,
		runs: map[string]int{}, byKey: map[string]int{}, running: map[string]context.CancelFunc{}, stopped: map[string]bool{}}
	for i := 0; i < n; i++ {
		w.wg.Add(1)
		go w.loop(ctx)
	}
	tb.Cleanup(w.close)
	return w
}

func (w *worker) close() {
	w.cancel()
	_ = w.rdb.Close() // wakes the blocked BRPOPs
	w.wg.Wait()
	_ = w.st.Close()
}

func (w *worker) loop(ctx context.Context) {
	defer w.wg.Done()
	queues := make([]string, len(w.types))
	for i, t := range w.types {
		queues[i] = store.QueueKey(t)
	}
	for ctx.Err() == nil {
		res, err := w.rdb.BRPop(ctx, time.Second, queues...).Result()
		if err != nil || len(res) != 2 {
			continue
		}
		w.run(ctx, res[1])
	}
}

// run takes one job through started → finished | error (or a retry).
func (w *worker) run(ctx context.Context, key string) {
	j, err := w.st.Jobs.LoadJobKey(ctx, w.ctxID, key)
	if err != nil {
		return
	}
	if w.isStopped(key) {
		_ = w.st.Jobs.CompleteJob(ctx, w.ctxID, key, j.Attempt, model.JobError, model.Hash{"error": "stopped"})
		return
	}
	if err := w.st.Jobs.SetJobStatus(ctx, w.ctxID, key, j.Attempt, model.JobStarted, nil); err != nil {
		return
	}
	start := time.Now()
	result, runErr := w.exec(ctx, key, j)
	w.mu.Lock()
	w.runs[j.Name]++
	w.byKey[key]++
	w.runTime += time.Since(start)
	w.mu.Unlock()
	if ctx.Err() != nil {
		return
	}
	if runErr != nil && j.Attempt <= j.Retries && !w.isStopped(key) {
		_, _ = w.st.Jobs.RequeueJob(ctx, w.ctxID, key, j.ScriptType, j.Attempt, nil)
		return
	}
	status, fields := model.JobFinished, model.Hash{"result": mustJSON(result)}
	if runErr != nil {
		status, fields["error"] = model.JobError, runErr.Error()
	}
	_ = w.st.Jobs.CompleteJob(ctx, w.ctxID, key, j.Attempt, status, fields)
}

// exec runs the script in its own process group, killed on stop.
func (w *worker) exec(ctx context.Context, key string, j *model.RunnerJob) (map[string]string, error) {
	if j.ScriptType == "noop" {
		return map[string]string{"job": j.Name}, nil
	}
	if j.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, time.Duration(j.Timeout)*time.Second)
		defer cancel()
	}
	ctx, kill := context.WithCancel(ctx)
	defer kill()
	w.mu.Lock()
	w.running[key] = kill
	w.mu.Unlock()
	defer func() { w.mu.Lock(); delete(w.running, key); w.mu.Unlock() }()
	resFile := filepath.Join(w.dir, strings.ReplaceAll(key, ":", "_")+fmt.Sprintf(".%d.result", j.Attempt))
	cmd := exec.CommandContext(ctx, "sh", "-c", j.Script)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HYPHAE_RESULT=" + resFile, "HYPHAE_JOB=" + key,
		fmt.Sprintf("HYPHAE_ATTEMPT=%d", j.Attempt)}
	for k, v := range j.EnvVars {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = time.Second
	out, err := cmd.Output()
	res := readResult(resFile)
	res["stdout"] = string(out)
	if err != nil {
		if w.isStopped(key) {
			return res, errors.New("stopped")
		}
		return res, fmt.Errorf("script: %w", err)
	}
	return res, nil
}

func readResult(path string) map[string]string {
	out := map[string]string{}
	f, err := os.Open(path)
	if err != nil {
		return out
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), "="); ok {
			out[k] = v
		}
	}
	return out
}

// Stop is the Config.Stop of tests: kill the job if it runs here, or end
// it when it is taken.
func (w *worker) Stop(_ context.Context, _ uint64, key string, _ *model.RunnerJob) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.stopped[key] = true
	if kill := w.running[key]; kill != nil {
		kill()
	}
	return nil
}

func (w *worker) isStopped(key string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.stopped[key]
}

func (w *worker) count(name string) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.runs[name]
}

func (w *worker) countKey(key string) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.byKey[key]
}

func (w *worker) busy() time.Duration {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.runTime
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}
