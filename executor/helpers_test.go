package executor_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/store"
	"github.com/hyphae-run/hyphae/executor"
	"github.com/hyphae-run/hyphae/internal/poll"
	"github.com/hyphae-run/hyphae/testkit/testlog"
	"github.com/hyphae-run/hyphae/testkit/testredis"
)

// waitLimit bounds every wait in these tests; conditions are polled.
const waitLimit = 30 * time.Second

// harness is one redis-server, a store on it and a data dir.
type harness struct {
	srv *testredis.Server
	st  *store.Store
	dir string
	log *slog.Logger
}

func newHarness(t *testing.T) *harness {
	t.Helper()
	srv := testredis.Start(t)
	st, err := store.Open(context.Background(), srv.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return &harness{srv: srv, st: st, dir: t.TempDir(), log: testLogger(t)}
}

// config is a fast configuration serving context 1.
func (h *harness) config() executor.Config {
	return executor.Config{
		DataDir:        h.dir,
		Concurrency:    2,
		RunnerID:       "runner-a",
		KillGrace:      300 * time.Millisecond,
		RetryBackoff:   20 * time.Millisecond,
		ContextRefresh: 200 * time.Millisecond,
		Sweep:          200 * time.Millisecond,
		Contexts:       fixedContexts(1),
	}
}

func fixedContexts(ids ...uint64) func(context.Context) ([]uint64, error) {
	return func(context.Context) ([]uint64, error) { return ids, nil }
}

// start creates and starts a runner, shut down when the test ends.
func (h *harness) start(t *testing.T, cfg executor.Config) *executor.Runner {
	t.Helper()
	r, err := executor.New(cfg, parts(h.st), h.log)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = r.Shutdown(ctx)
	})
	return r
}

// client is a plain go-redis client on a DB: the Redis contract's side.
func (h *harness) client(t *testing.T, db int) *redis.Client { return h.srv.Client(t, db) }

// submit writes a job hash and pushes it on queue:<type>, exactly as any
// client of the contract would.
func submit(t *testing.T, c *redis.Client, caller, id int, typ, script string, extra ...any) string {
	t.Helper()
	ctx := context.Background()
	key := fmt.Sprintf("job:%d:%d", caller, id)
	fields := append([]any{"id", id, "caller_id", caller, "context_id", c.Options().DB,
		"script", script, "script_type", typ, "status", "dispatched"}, extra...)
	if err := c.HSet(ctx, key, fields...).Err(); err != nil {
		t.Fatal(err)
	}
	if err := c.LPush(ctx, "queue:"+typ, key).Err(); err != nil {
		t.Fatal(err)
	}
	return key
}

// waitEnd polls the job hash until its status is finished or error.
func waitEnd(t *testing.T, c *redis.Client, key string) map[string]string {
	t.Helper()
	var h map[string]string
	waitFor(t, key+" to end", func() bool {
		var err error
		h, err = c.HGetAll(context.Background(), key).Result()
		return err == nil && (h["status"] == "finished" || h["status"] == "error")
	})
	return h
}

// waitFor polls cond until it holds or waitLimit passes (poll.Eventually).
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	poll.Eventually(t, waitLimit, what, cond)
}

// waitFile waits until path exists.
func waitFile(t *testing.T, path string) {
	t.Helper()
	waitFor(t, path, func() bool { _, err := os.Stat(path); return err == nil })
}

func resultOf(t *testing.T, h map[string]string) map[string]string {
	t.Helper()
	var m map[string]string
	if err := jsonUnmarshal(h["result"], &m); err != nil {
		t.Fatalf("result %q: %v", h["result"], err)
	}
	return m
}

// testLogger is the runners' log: printed if the test fails (testlog).
func testLogger(t *testing.T) *slog.Logger {
	log, named := testlog.New(t)
	named("the runners")
	return log
}

// jobDir is where the runner puts attempt n of job:<caller>:<id> of ctx.
func jobDir(base string, ctx, caller, id, attempt int) string {
	return filepath.Join(base, "contexts", fmt.Sprint(ctx), "jobs", fmt.Sprintf("%d-%d-%d", caller, id, attempt))
}

// newUnstarted creates a runner without starting it (to register hooks).
func newUnstarted(t *testing.T, h *harness, cfg executor.Config) (*executor.Runner, error) {
	t.Helper()
	r, err := executor.New(cfg, parts(h.st), h.log)
	if err != nil {
		t.Fatal(err)
	}
	return r, nil
}

// startRunner starts r and shuts it down when the test ends.
func startRunner(t *testing.T, r *executor.Runner) {
	t.Helper()
	if err := r.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = r.Shutdown(ctx)
	})
}

// parts hands the runner the store's concern types.
func parts(st *store.Store) executor.Store {
	return executor.Store{Jobs: st.Jobs, Queues: st.Queues, Flows: st.Flows, Registry: st.Registry, Logs: st.Logs}
}

func openStore(tb testing.TB, url string) (*store.Store, error) {
	st, err := store.Open(context.Background(), url, nil)
	if err == nil {
		tb.Cleanup(func() { st.Close() })
	}
	return st, err
}

// startBench starts a runner for a benchmark (no test logger).
func startBench(b *testing.B, h *harness, cfg executor.Config, hook func(uint64, *model.RunnerJob)) {
	b.Helper()
	r, err := executor.New(cfg, parts(h.st), nil)
	if err != nil {
		b.Fatal(err)
	}
	if hook != nil {
		r.OnJobDone(hook)
	}
	if err := r.Start(context.Background()); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = r.Shutdown(ctx)
	})
}

func jsonUnmarshal(s string, v any) error { return json.Unmarshal([]byte(s), v) }

func mustLRange(t *testing.T, c *redis.Client, key string) []string {
	t.Helper()
	l, err := c.LRange(context.Background(), key, 0, -1).Result()
	if err != nil {
		t.Fatal(err)
	}
	return l
}
