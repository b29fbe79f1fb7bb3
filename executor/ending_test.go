package executor_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/executor"
)

// endingSeen is what ending hooks were told, and the job's status in
// Redis at that moment.
type endingSeen struct {
	job      model.RunnerJob
	logs     []string
	stored   string // status in Redis when the hook ran
	written  bool
	writeErr bool
}

// An ending hook hears of a job's end before it is written — with the
// status, result and the last lines of the log as Redis will hold them,
// the cap marker included — and then whether the write landed.
func TestEndingHookRunsBeforeTheWriteWithTheLogTail(t *testing.T) {
	h := newHarness(t)
	cfg := h.config()
	cfg.LogLines = 60 // over EndingLogLines, so the tail is a window of the list
	r, err := executor.New(cfg, parts(h.st), h.log)
	if err != nil {
		t.Fatal(err)
	}
	c := h.client(t, 1)
	var mu sync.Mutex
	seen := map[string]*endingSeen{}
	r.OnJobEnding(func(ctxID uint64, j *model.RunnerJob, logs []string) func(bool) {
		key := fmt.Sprintf("job:%d:%d", j.CallerID, j.ID)
		st, _ := c.HGet(context.Background(), key, "status").Result()
		e := &endingSeen{job: *j, logs: logs, stored: st}
		mu.Lock()
		seen[key] = e
		mu.Unlock()
		return func(ok bool) { mu.Lock(); e.written, e.writeErr = true, !ok; mu.Unlock() }
	})
	if err := r.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Shutdown(context.Background()) })

	short := submit(t, c, 1, 1, "sh", `echo one; echo two >&2; echo x=1 > "$HYPHAE_RESULT"`)
	long := submit(t, c, 1, 2, "sh", `i=0; while [ $i -lt 80 ]; do echo line $i; i=$((i+1)); done; exit 3`)
	for _, key := range []string{short, long} {
		waitEnd(t, c, key)
		waitFor(t, "the hook's write report for "+key, func() bool {
			mu.Lock()
			defer mu.Unlock()
			return seen[key] != nil && seen[key].written
		})
		mu.Lock()
		e := seen[key]
		mu.Unlock()
		if e.stored != "started" || e.writeErr {
			t.Errorf("%s: hook saw status %q in Redis (want started: before the write), write failed %v", key, e.stored, e.writeErr)
		}
		stored, err := c.LRange(context.Background(), "logs:"+key, -executor.EndingLogLines, -1).Result()
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(e.logs, stored) {
			t.Errorf("%s: hook's log tail\n%q\nRedis's last %d lines\n%q", key, e.logs, executor.EndingLogLines, stored)
		}
	}
	if e := seen[short]; e.job.Status != model.JobFinished || e.job.Result["x"] != "1" || len(e.logs) != 2 {
		t.Errorf("short job told %s %v logs %q", e.job.Status, e.job.Result, e.logs)
	}
	if e := seen[long]; e.job.Status != model.JobError || e.job.Error == "" || len(e.logs) != executor.EndingLogLines {
		t.Errorf("long job told %s %q, %d log lines", e.job.Status, e.job.Error, len(e.logs))
	}
}
