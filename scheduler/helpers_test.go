package scheduler_test

import (
	"context"
	"log/slog"
	"os"
	"testing"
	"time"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/store"
	"github.com/hyphae-run/hyphae/internal/poll"
	"github.com/hyphae-run/hyphae/scheduler"
	"github.com/hyphae-run/hyphae/scheduler/flowfile"
	"github.com/hyphae-run/hyphae/testkit/testredis"
)

const ctxID = 1

// env is one test's Redis, store and worker.
type env struct {
	srv *testredis.Server
	st  *store.Store
	w   *worker
	ctx context.Context
}

func newEnv(t testing.TB, workers int) *env {
	t.Helper()
	srv := testredis.Start(t)
	st, err := store.Open(context.Background(), srv.URL, nil)
	if err != nil {
		t.Fatalf("store.Open: %v", err)
	}
	t.Cleanup(func() { _ = st.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	e := &env{srv: srv, st: st, ctx: ctx}
	if workers > 0 {
		e.w = startWorker(t, srv, ctxID, workers, "sh", "noop")
	}
	return e
}

// config is the usual test config: sh and noop run locally, Stop goes to
// the worker.
func (e *env) config() scheduler.Config {
	cfg := scheduler.Config{
		Self:       "12D3KooWSelfPeerForTestsOnly",
		LocalTypes: func() []string { return []string{"sh", "noop"} },
		Contexts:   func(context.Context) ([]uint64, error) { return []uint64{ctxID}, nil },
		Block:      100 * time.Millisecond,
		WatchPoll:  100 * time.Millisecond,
	}
	if e.w != nil {
		cfg.Stop = e.w.Stop
	}
	return cfg
}

// sched starts a scheduler, shut down when the test ends.
func (e *env) sched(t testing.TB, cfg scheduler.Config) *scheduler.Scheduler {
	t.Helper()
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	s, err := scheduler.New(cfg, parts(e.st), log)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	if err := s.Start(e.ctx); err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() { _ = s.Shutdown(context.Background()) })
	return s
}

// create parses and stores a flow file's text.
func (e *env) create(t testing.TB, s *scheduler.Scheduler, text string) *model.Flow {
	t.Helper()
	f, _, err := flowfile.Parse([]byte(text), "flow.yaml", t.TempDir())
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	if f.Context == 0 {
		f.Context = ctxID
	}
	fl, err := s.Create(e.ctx, f, 1)
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	return fl
}

// run creates and starts a flow.
func (e *env) run(t testing.TB, s *scheduler.Scheduler, text string) *model.Flow {
	t.Helper()
	fl := e.create(t, s, text)
	if err := s.StartFlow(e.ctx, fl.ContextID, fl.ID); err != nil {
		t.Fatalf("StartFlow: %v", err)
	}
	return fl
}

// wait blocks until the flow ends.
func (e *env) wait(t testing.TB, s *scheduler.Scheduler, id uint64) *scheduler.Status {
	t.Helper()
	ctx, cancel := context.WithTimeout(e.ctx, time.Minute)
	defer cancel()
	st, err := s.Wait(ctx, ctxID, id)
	if err != nil {
		t.Fatalf("Wait flow %d: %v", id, err)
	}
	return st
}

// eventually polls cond until it holds or 30s pass (poll.Eventually).
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	poll.Eventually(t, 30*time.Second, what, cond)
}

// job finds a job of a status by name.
func job(t *testing.T, st *scheduler.Status, name string) scheduler.JobState {
	t.Helper()
	for _, j := range st.Jobs {
		if j.Name == name {
			return j
		}
	}
	t.Fatalf("flow %d has no job %q", st.ID, name)
	return scheduler.JobState{}
}

// wantStates asserts the node state of each named job.
func wantStates(t *testing.T, st *scheduler.Status, want map[string]model.NodeState) {
	t.Helper()
	for name, s := range want {
		if got := job(t, st, name).State; got != s {
			t.Errorf("job %s: state %s, want %s\n%s", name, got, s, render(st))
		}
	}
}

func wantFlow(t *testing.T, st *scheduler.Status, status model.FlowStatus) {
	t.Helper()
	if st.Status != status {
		t.Fatalf("flow status %s (error %q), want %s\n%s", st.Status, st.Error, status, render(st))
	}
}
