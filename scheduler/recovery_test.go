package scheduler_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/store"
	"github.com/hyphae-run/hyphae/scheduler"
)

// recoveryFlow is a → b1..b4 → c → d1..d4 → e; each job appends a line to
// $RUNS/<name> so a second execution shows.
func recoveryFlow(runs string) string {
	var b strings.Builder
	job := func(name, needs string) {
		fmt.Fprintf(&b, "  %s: {type: sh, needs: [%s], script: 'echo x >> \"$RUNS/%s\"; sleep 0.05; echo \"n=1\" >> \"$HYPHAE_RESULT\"'}\n", name, needs, name)
	}
	fmt.Fprintf(&b, "env: {RUNS: %s}\njobs:\n", runs)
	job("a", "")
	for i := 1; i <= 4; i++ {
		job(fmt.Sprintf("b%d", i), "a")
	}
	job("c", "b1, b2, b3, b4")
	for i := 1; i <= 4; i++ {
		job(fmt.Sprintf("d%d", i), "c")
	}
	job("e", "d1, d2, d3, d4")
	return b.String()
}

// wantRunOnce asserts every job of the flow ran exactly once.
func wantRunOnce(t *testing.T, st *scheduler.Status, runs string) {
	t.Helper()
	for _, j := range st.Jobs {
		b, err := os.ReadFile(filepath.Join(runs, j.Name))
		if err != nil {
			t.Fatalf("job %s never ran: %v", j.Name, err)
		}
		if n := strings.Count(string(b), "x"); n != 1 {
			t.Fatalf("job %s ran %d times", j.Name, n)
		}
	}
}

// TestRecoveryAfterKill runs the flow from a child process that is killed
// with SIGKILL mid-flow; a new scheduler here finishes it.
func TestRecoveryAfterKill(t *testing.T) {
	for _, killAt := range []int{1, 5, 9} {
		t.Run(fmt.Sprintf("after_%d_done", killAt), func(t *testing.T) {
			e := newEnv(t, 2)
			runs := t.TempDir()
			creator, _ := scheduler.New(e.config(), parts(e.st), nil)
			fl := e.create(t, creator, recoveryFlow(runs))
			child := startChild(t, e, fl.ID)
			eventually(t, fmt.Sprintf("%d jobs done", killAt), func() bool { return done(t, e, fl.ID) >= killAt })
			_ = child.Process.Kill()
			_ = child.Wait()
			t.Logf("killed the supervisor with %d of 11 jobs done", done(t, e, fl.ID))
			s := e.sched(t, e.config())
			st := e.wait(t, s, fl.ID)
			wantFlow(t, st, model.FlowFinished)
			wantRunOnce(t, st, runs)
			if len(st.Result) < 11 {
				t.Fatalf("flow result has %d entries, want one per job", len(st.Result))
			}
		})
	}
}

func startChild(t *testing.T, e *env, flowID uint64) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperSupervisor$")
	cmd.Env = append(os.Environ(), "HYPHAE_TEST_SUPERVISOR="+e.srv.URL, "HYPHAE_TEST_FLOW="+strconv.FormatUint(flowID, 10))
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("start child: %v", err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	return cmd
}

// done counts the flow's ended nodes.
func done(t *testing.T, e *env, flowID uint64) int {
	nodes, err := e.st.Flows.FlowNodes(e.ctx, ctxID, flowID)
	if err != nil {
		t.Fatalf("FlowNodes: %v", err)
	}
	n := 0
	for _, s := range nodes {
		if model.NodeState(s).Terminal() {
			n++
		}
	}
	return n
}

// TestHelperSupervisor is the child process of TestRecoveryAfterKill: a
// supervisor that starts the flow and runs until it is killed.
func TestHelperSupervisor(t *testing.T) {
	url := os.Getenv("HYPHAE_TEST_SUPERVISOR")
	if url == "" {
		t.Skip("child process of TestRecoveryAfterKill")
	}
	id, _ := strconv.ParseUint(os.Getenv("HYPHAE_TEST_FLOW"), 10, 64)
	ctx := context.Background()
	st, err := store.Open(ctx, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	e := &env{st: st, ctx: ctx}
	s, err := scheduler.New(e.config(), parts(st), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if err := s.StartFlow(ctx, ctxID, id); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Hour) // until the parent kills us
}

// TestRecoveryMissedEvents covers the crash windows one by one: an event
// lost, an event taken but not handled, and a scheduler gone mid-flow.
func TestRecoveryMissedEvents(t *testing.T) {
	for _, lose := range []string{"event deleted", "event left in processing"} {
		t.Run(lose, func(t *testing.T) {
			e := newEnv(t, 0)
			runs := t.TempDir()
			s1 := e.sched(t, e.config())
			fl := e.run(t, s1, recoveryFlow(runs))
			if err := s1.Shutdown(e.ctx); err != nil {
				t.Fatal(err)
			}
			runRootByHand(t, e, runs)
			rdb := e.srv.Client(t, ctxID)
			if lose == "event deleted" {
				rdb.Del(e.ctx, store.JobsDoneKey)
			} else {
				rdb.LMove(e.ctx, store.JobsDoneKey, store.JobsDoneProcessingKey(e.config().Self), "RIGHT", "LEFT")
			}
			e.w = startWorker(t, e.srv, ctxID, 2, "sh")
			s2 := e.sched(t, e.config())
			st := e.wait(t, s2, fl.ID)
			wantFlow(t, st, model.FlowFinished)
			wantRunOnce(t, st, runs)
		})
	}
}

// runRootByHand plays the runner for job a while no scheduler runs.
func runRootByHand(t *testing.T, e *env, runs string) {
	t.Helper()
	rdb := e.srv.Client(t, ctxID)
	key, err := rdb.RPop(e.ctx, store.QueueKey("sh")).Result()
	if err != nil {
		t.Fatalf("root job not queued: %v", err)
	}
	if err := os.WriteFile(filepath.Join(runs, "a"), []byte("x\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	err = e.st.Jobs.CompleteJob(e.ctx, ctxID, key, 1, model.JobFinished, model.Hash{"result": `{"n":"1"}`})
	if err != nil {
		t.Fatalf("CompleteJob: %v", err)
	}
}

// TestDuplicateEvents pushes every job's completion again after the flow
// ended, and twice while it runs: nothing changes, nothing runs twice.
func TestDuplicateEvents(t *testing.T) {
	e := newEnv(t, 2)
	s := e.sched(t, e.config())
	runs := t.TempDir()
	fl := e.run(t, s, recoveryFlow(runs))
	rdb := e.srv.Client(t, ctxID)
	eventually(t, "two jobs done", func() bool { return done(t, e, fl.ID) >= 2 })
	st, _ := s.Status(e.ctx, ctxID, fl.ID)
	for _, j := range st.Jobs {
		if j.State == model.NodeCompleted {
			rdb.LPush(e.ctx, store.JobsDoneKey, j.Key, j.Key)
		}
	}
	st = e.wait(t, s, fl.ID)
	wantFlow(t, st, model.FlowFinished)
	before := st.Version
	for _, j := range st.Jobs {
		rdb.LPush(e.ctx, store.JobsDoneKey, j.Key)
	}
	eventually(t, "jobs_done drained", func() bool { return rdb.LLen(e.ctx, store.JobsDoneKey).Val() == 0 })
	after, _ := s.Status(e.ctx, ctxID, fl.ID)
	if after.Version != before || after.Status != model.FlowFinished {
		t.Fatalf("late duplicates changed the flow:\n%s", render(after))
	}
	wantRunOnce(t, after, runs)
}
