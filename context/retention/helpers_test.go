package retention_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hyphae-run/hyphae/context/jobdir"
	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/retention"
	"github.com/hyphae-run/hyphae/context/store"
	"github.com/hyphae-run/hyphae/executor"
	"github.com/hyphae-run/hyphae/internal/poll"
	"github.com/hyphae-run/hyphae/testkit/testlog"
	"github.com/hyphae-run/hyphae/testkit/testredis"
)

// waitLimit bounds every wait in these tests; conditions are polled.
const waitLimit = 30 * time.Second

// harness is one redis-server, a store on it, a data dir and a real
// runner serving context 1.
type harness struct {
	srv *testredis.Server
	st  *store.Store
	dir string
	log *slog.Logger
	c   *redis.Client // a plain client on DB 1
}

func newHarness(t testing.TB) *harness {
	t.Helper()
	h := newStoreHarness(t)
	h.startRunner(t, nil)
	return h
}

// newStoreHarness is a harness without its runner.
func newStoreHarness(t testing.TB) *harness {
	t.Helper()
	srv := testredis.Start(t)
	st, err := store.Open(context.Background(), srv.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	log, _ := testlog.New(t)
	return &harness{srv: srv, st: st, dir: t.TempDir(), log: log, c: srv.Client(t, 1)}
}

func contextOne(context.Context) ([]uint64, error) { return []uint64{1}, nil }

// startRunner starts a runner serving context 1 (hook, if any, hears of
// every job's end), shut down when the test ends.
func (h *harness) startRunner(t testing.TB, hook func(uint64, *model.RunnerJob)) {
	t.Helper()
	r, err := executor.New(executor.Config{DataDir: h.dir, Concurrency: 2, RunnerID: "runner-a",
		ContextRefresh: 200 * time.Millisecond, Contexts: contextOne, NoCgroups: true}, executor.Store{Jobs: h.st.Jobs, Queues: h.st.Queues, Flows: h.st.Flows, Registry: h.st.Registry, Logs: h.st.Logs}, h.log)
	if err != nil {
		t.Fatal(err)
	}
	if hook != nil {
		r.OnJobDone(hook)
	}
	if err := r.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = r.Shutdown(ctx)
	})
}

// janitor makes a Janitor over the harness's context 1, shut down when
// the test ends.
func (h *harness) janitor(t testing.TB, cfg retention.Config) *retention.Janitor {
	t.Helper()
	cfg.DataDir, cfg.Contexts = h.dir, contextOne
	j, err := retention.New(cfg, retention.Store{Jobs: h.st.Jobs, Bus: h.st.Bus, Flows: h.st.Flows}, h.log)
	if err != nil {
		t.Fatal(err)
	}
	if err := j.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = j.Shutdown(context.Background()) })
	return j
}

// submit writes job:1:<id> and pushes it on queue:<typ>, as any client of
// the Redis contract does.
func (h *harness) submit(t testing.TB, id int, typ, script string, extra ...any) string {
	t.Helper()
	ctx := context.Background()
	key := fmt.Sprintf("job:1:%d", id)
	fields := append([]any{"id", id, "caller_id", 1, "context_id", 1, "script", script,
		"script_type", typ, "status", "dispatched"}, extra...)
	if err := h.c.HSet(ctx, key, fields...).Err(); err != nil {
		t.Fatal(err)
	}
	if err := h.c.LPush(ctx, "queue:"+typ, key).Err(); err != nil {
		t.Fatal(err)
	}
	return key
}

// waitStatus polls job key until its status is one of want.
func (h *harness) waitStatus(t testing.TB, key string, want ...string) {
	t.Helper()
	poll.Eventually(t, waitLimit, key+" to reach "+fmt.Sprint(want), func() bool {
		st := h.c.HGet(context.Background(), key, "status").Val()
		for _, w := range want {
			if st == w {
				return true
			}
		}
		return false
	})
}

// jobDir is attempt 1's directory of job:1:<id>.
func (h *harness) jobDir(id int) string {
	return filepath.Join(jobdir.JobsDir(h.dir, 1), fmt.Sprintf("1-%d-1", id))
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// keysOf reports how many of a job's keys (hash, log) exist.
func (h *harness) keysOf(t testing.TB, key string) int64 {
	t.Helper()
	n, err := h.c.Exists(context.Background(), key, store.LogKey(key)).Result()
	if err != nil {
		t.Fatal(err)
	}
	return n
}
