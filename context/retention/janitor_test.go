package retention_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/retention"
	"github.com/hyphae-run/hyphae/context/store"
	"github.com/hyphae-run/hyphae/internal/poll"
)

// Jobs past the age or beyond the count go with their logs and job
// directories; the newest stay, and so do a running job and a job of a
// flow still running; a dry run reports the same and removes nothing; a
// directory whose job is gone goes once it is old.
func TestPruneRemovesOldAndSurplusJobs(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	marks := t.TempDir()
	running := h.submit(t, 9, "sh", `while [ ! -e `+marks+`/go ]; do sleep 0.05; done`)
	for id := 1; id <= 5; id++ {
		h.waitStatus(t, h.submit(t, id, "sh", "echo job "+strconv.Itoa(id)), "finished")
	}
	h.waitStatus(t, running, "started")
	// Ages: job 1 ended ten days ago, jobs 2..5 a few seconds apart.
	now := time.Now().Unix()
	h.c.HSet(ctx, "job:1:1", "updated_at", now-10*24*3600)
	for id := 2; id <= 5; id++ {
		h.c.HSet(ctx, fmt.Sprintf("job:1:%d", id), "updated_at", now-int64(10-id))
	}
	// A flow still running, with an ended job.
	h.c.HSet(ctx, store.FlowKey(7), "status", "started", "caller_id", "1", "jobs", "[7]", "updated_at", now-30*24*3600)
	h.c.SAdd(ctx, store.FlowsActiveKey, "7")
	h.waitStatus(t, h.submit(t, 7, "sh", "echo flow job", "flow_id", "7"), "finished")
	h.c.HSet(ctx, "job:1:7", "updated_at", now-30*24*3600)
	// Directories whose job is gone: one old, one fresh.
	orphanOld, orphanNew := h.jobDir(90), h.jobDir(91)
	for _, d := range []string{orphanOld, orphanNew} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	old := time.Now().Add(-2 * time.Hour)
	if err := os.Chtimes(orphanOld, old, old); err != nil {
		t.Fatal(err)
	}

	j := h.janitor(t, retention.Config{MaxJobs: 3, Off: true})
	dry, err := j.Prune(ctx, retention.Options{DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if c := dry.Total(); c.Jobs != 2 || c.Dirs != 3 || c.RedisBytes <= 0 || !dry.DryRun {
		t.Fatalf("dry run reports %+v, want 2 jobs and 3 directories", c)
	}
	for id := 1; id <= 5; id++ {
		if h.keysOf(t, fmt.Sprintf("job:1:%d", id)) != 2 || !exists(h.jobDir(id)) {
			t.Fatalf("the dry run removed something of job:1:%d", id)
		}
	}
	if !exists(orphanOld) {
		t.Fatal("the dry run removed an orphan directory")
	}

	rep, err := j.Prune(ctx, retention.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if c := rep.Total(); c.Jobs != 2 || c.Dirs != 3 || c.DiskBytes <= 0 {
		t.Fatalf("prune reports %+v, want 2 jobs and 3 directories", c)
	}
	for id, kept := range map[int]bool{1: false, 2: false, 3: true, 4: true, 5: true, 7: true, 9: true} {
		key := fmt.Sprintf("job:1:%d", id)
		if got := h.keysOf(t, key) > 0 && exists(h.jobDir(id)); got != kept {
			t.Errorf("%s: kept %v, want %v (keys %d, dir %v)", key, got, kept, h.keysOf(t, key), exists(h.jobDir(id)))
		}
	}
	if exists(orphanOld) || !exists(orphanNew) {
		t.Errorf("orphan directories: old one left %v, fresh one left %v; want only the fresh one", exists(orphanOld), exists(orphanNew))
	}
	if err := os.WriteFile(filepath.Join(marks, "go"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
}

// Left alone, the janitor sweeps by itself: the finished jobs beyond the
// count go without anyone asking.
func TestJanitorSweepsOnItsOwn(t *testing.T) {
	h := newHarness(t)
	for id := 1; id <= 4; id++ {
		h.waitStatus(t, h.submit(t, id, "sh", "echo hi"), "finished")
	}
	h.janitor(t, retention.Config{MaxJobs: 1, Interval: 20 * time.Millisecond})
	poll.Eventually(t, waitLimit, "three of the four jobs to be swept", func() bool {
		left := 0
		for id := 1; id <= 4; id++ {
			if h.keysOf(t, fmt.Sprintf("job:1:%d", id)) > 0 {
				left++
			}
		}
		return left == 1
	})
}

// A runner that tells the janitor of the jobs it ends has them swept once
// they pass MaxJobs by the Margin, an hour before the periodic sweep: the
// newest MaxJobs stay. The jobs a sweep kept count toward the next one.
func TestJanitorSweepsEarlyPastTheMargin(t *testing.T) {
	h := newStoreHarness(t)
	j := h.janitor(t, retention.Config{MaxJobs: 2, Margin: 3, Interval: time.Hour})
	h.startRunner(t, func(ctxID uint64, _ *model.RunnerJob) { j.Ended(ctxID) })
	// Ids of two digits: jobs that end within the same second are kept by
	// their key's order.
	h.runNoops(t, 11, 16) // six ended: past 2 by more than 3
	h.waitLeft(t, 11, 20, 15, 16)
	h.runNoops(t, 17, 20) // the two kept and four more
	h.waitLeft(t, 11, 20, 19, 20)
}

// runNoops runs noop jobs from..to, one after the other.
func (h *harness) runNoops(t *testing.T, from, to int) {
	t.Helper()
	for id := from; id <= to; id++ {
		h.waitStatus(t, h.submit(t, id, "noop", ""), "finished")
	}
}

// waitLeft polls until, of jobs from..to, exactly those in want are left.
func (h *harness) waitLeft(t *testing.T, from, to int, want ...int) {
	t.Helper()
	var left []int
	poll.Eventually(t, waitLimit, fmt.Sprintf("only jobs %v to be left", want), func() bool {
		left = left[:0]
		for id := from; id <= to; id++ {
			if h.keysOf(t, fmt.Sprintf("job:1:%d", id)) > 0 {
				left = append(left, id)
			}
		}
		return slices.Equal(left, want)
	})
}

// prune of a context the agent does not have says so.
func TestPruneUnknownContext(t *testing.T) {
	h := newHarness(t)
	j := h.janitor(t, retention.Config{Off: true})
	_, err := j.Prune(context.Background(), retention.Options{Context: 5})
	if !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("prune of context 5: %v, want not found", err)
	}
}
