package store_test

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/store"
)

// An EndWatch gets the job as its completion left it — status, fields and
// log lines — from that completion, while everyone else who waits still
// finds the status on reply:<key>; and the wait sends no blocking command.
func TestEndWatchGetsTheEndedJob(t *testing.T) {
	s, srv := ctOpen(t)
	ctx := ctCtx(t)
	raw := srv.Client(t, 2)
	for _, withLogs := range []bool{false, true} {
		key := sentJob(t, s)
		w := s.Jobs.WatchEnd(2, key)
		defer w.Close()
		got := make(chan *model.RunnerJob, 1)
		go func() {
			j, err := w.Wait(ctx)
			if err != nil {
				t.Error(err)
			}
			got <- j
		}()
		before := blockingCalls(t, raw)
		var lines []string
		if withLogs {
			lines = []string{"one", "two"}
		}
		if err := s.Jobs.CompleteJobWithLogs(ctx, 2, key, 1, model.JobFinished,
			model.Hash{"result": `{"a":"b"}`, "ran_on": "elsewhere"}, lines, 10); err != nil {
			t.Fatal(err)
		}
		var ended *model.RunnerJob
		select {
		case ended = <-got:
		case <-time.After(time.Second): // far below the fallback's look every 2 s
			t.Fatalf("logs %v: the watch did not get the end from the completion", withLogs)
		}
		if ended == nil || ended.Status != model.JobFinished || ended.Result["a"] != "b" || ended.Extra["ran_on"] != "elsewhere" {
			t.Fatalf("logs %v: watch got %+v", withLogs, ended)
		}
		if n, _ := raw.LLen(ctx, store.ReplyKey(key)).Result(); n != 1 {
			t.Errorf("logs %v: reply list holds %d entries, want the status for other waiters", withLogs, n)
		}
		if withLogs {
			if logs, _ := raw.LRange(ctx, store.LogKey(key), 0, -1).Result(); len(logs) != 2 {
				t.Errorf("log lines %q", logs)
			}
		}
		if n := blockingCalls(t, raw) - before; n != 0 {
			t.Errorf("logs %v: %d blocking commands while watching, want none", withLogs, n)
		}
	}
}

// A job ended by someone else (a plain Redis client) still ends the wait,
// at the watch's next look; a closed watch, or a deadline, ends it too.
func TestEndWatchSeesAnEndElsewhere(t *testing.T) {
	s, srv := ctOpen(t)
	ctx := ctCtx(t)
	key := sentJob(t, s)
	w := s.Jobs.WatchEnd(2, key)
	defer w.Close()
	short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	if got, err := w.Wait(short); got != nil || err != context.DeadlineExceeded {
		t.Fatalf("before the end: %+v, %v; want the deadline", got, err)
	}
	if err := srv.Client(t, 2).HSet(ctx, key, "status", "error", "error", "cancelled by hand").Err(); err != nil {
		t.Fatal(err)
	}
	got, err := w.Wait(ctx)
	if err != nil || got.Status != model.JobError || got.Error != "cancelled by hand" {
		t.Fatalf("ended elsewhere: %+v, %v", got, err)
	}
	w.Close()
	w.Close() // twice is fine
}

// blockingCalls is how many blocking list commands (what a waiter on
// reply:<key> sends) the server has run.
func blockingCalls(t *testing.T, c *redis.Client) int {
	info, err := c.Info(context.Background(), "commandstats").Result()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, line := range strings.Split(info, "\n") {
		name, stats, _ := strings.Cut(strings.TrimSpace(line), ":")
		switch name {
		case "cmdstat_brpoplpush", "cmdstat_blmove", "cmdstat_blpop", "cmdstat_brpop":
			calls, _, _ := strings.Cut(strings.TrimPrefix(stats, "calls="), ",")
			k, _ := strconv.Atoi(calls)
			n += k
		}
	}
	return n
}

// sentJob saves a job in context 2 as one sent to another agent is saved:
// dispatched, attempt 1, on no queue. It returns its key.
func sentJob(t *testing.T, s *store.Store) string {
	j := &model.RunnerJob{CallerID: 1, ContextID: 2, ScriptType: "sh", Status: model.JobDispatched, Attempt: 1}
	if err := s.Jobs.SaveJob(context.Background(), j); err != nil {
		t.Fatal(err)
	}
	return store.JobKey(1, j.ID)
}
