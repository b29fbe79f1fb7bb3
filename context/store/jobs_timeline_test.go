package store_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/store"
)

// Each move of a job is on its timeline, with its attempt and the error
// of a failed attempt; the job is in its context's index from its
// creation; pruning the job takes its timeline, log meta and index entry.
func TestTimelineRecordsMovesAndGoesWithTheJob(t *testing.T) {
	s, srv := ctOpen(t)
	ctx := ctCtx(t)
	const ctxID = 1
	db := srv.Client(t, ctxID)
	j := &model.RunnerJob{CallerID: 1, ContextID: ctxID, ScriptType: "sh", Script: "true"}
	if err := s.Jobs.CreateQueuedJob(ctx, j); err != nil {
		t.Fatal(err)
	}
	key := store.JobKey(1, j.ID)
	steps := []func() error{
		func() error { return s.Jobs.SetJobStatus(ctx, ctxID, key, 1, model.JobStarted, nil) },
		func() error {
			return s.Jobs.CompleteJob(ctx, ctxID, key, 1, model.JobError, model.Hash{"error": "exit 3"})
		},
		func() error { _, err := s.Jobs.RetryJob(ctx, ctxID, key, "sh", 1); return err },
		func() error { return s.Jobs.SetJobStatus(ctx, ctxID, key, 2, model.JobStarted, nil) },
		func() error { return s.Jobs.CompleteJob(ctx, ctxID, key, 2, model.JobFinished, nil) },
	}
	for i, step := range steps {
		if err := step(); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
	}
	tl, err := s.Jobs.Timeline(ctx, ctxID, key)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range tl {
		got = append(got, e.Event+"@"+string(rune('0'+e.Attempt)))
		if e.TimeMS <= 0 {
			t.Errorf("entry %+v has no time", e)
		}
	}
	want := []string{"created@1", "started@1", "error@1", "retry@2", "started@2", "finished@2"}
	if !slices.Equal(got, want) {
		t.Fatalf("timeline = %v, want %v", got, want)
	}
	if tl[2].Detail != "exit 3" {
		t.Errorf("error entry detail = %q, want the job's error", tl[2].Detail)
	}
	if keys, n, err := s.Jobs.IndexedSince(ctx, ctxID, 0); err != nil || n != 1 || !slices.Equal(keys, []string{key}) {
		t.Fatalf("index = %v (%d), %v; want the job", keys, n, err)
	}
	if err := s.Logs.AppendLogLines(ctx, ctxID, key, []store.LogLine{store.NewLogLine("x", store.LogStdout)}, 10); err != nil {
		t.Fatal(err)
	}

	listed, err := s.Jobs.EndedJobs(ctx, ctxID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Jobs.PruneJobs(ctx, ctxID, listed, false); err != nil {
		t.Fatal(err)
	}
	n, err := db.Exists(ctx, key, store.TimelineKey(key), store.LogMetaKey(key), store.LogKey(key)).Result()
	if err != nil || n != 0 {
		t.Fatalf("after pruning, %d of the job's keys are left (%v)", n, err)
	}
	if _, n, _ := s.Jobs.IndexedSince(ctx, ctxID, 0); n != 0 {
		t.Fatalf("after pruning, the index holds %d keys", n)
	}
}

// job_changes remembers the newest JobChangesCap moves, not every move of
// the last JobChangesKeep: at thousands of jobs a second it would outgrow
// the jobs retention keeps. A reader whose mark is older than what was
// trimmed away is told to read everything again.
func TestJobChangesKeepsTheNewestCap(t *testing.T) {
	s, srv := ctOpen(t)
	ctx := ctCtx(t)
	const ctxID = 1
	db := srv.Client(t, ctxID)
	now, err := db.Time(ctx).Result()
	if err != nil {
		t.Fatal(err)
	}
	old := now.UnixMilli() - 60_000 // within JobChangesKeep: age trims none of them
	over := store.JobChangesCap + 5000
	for lo := 0; lo < over; lo += 1000 {
		zs := make([]redis.Z, 0, 1000)
		for i := lo; i < lo+1000; i++ {
			zs = append(zs, redis.Z{Score: float64(old), Member: fmt.Sprintf("job:9:%d", i)})
		}
		if err := db.ZAdd(ctx, store.JobChangesKey, zs...).Err(); err != nil {
			t.Fatal(err)
		}
	}
	var last string
	for i := 0; i < 20000; i++ { // a trim runs on about one move in 16
		j := &model.RunnerJob{CallerID: 1, ContextID: ctxID, ScriptType: "sh", Script: "true"}
		if err := s.Jobs.CreateQueuedJob(ctx, j); err != nil {
			t.Fatal(err)
		}
		last = store.JobKey(1, j.ID)
		if n := db.ZCard(ctx, store.JobChangesKey).Val(); n <= store.JobChangesCap {
			break
		}
	}
	if n := db.ZCard(ctx, store.JobChangesKey).Val(); n > store.JobChangesCap {
		t.Fatalf("job_changes holds %d members, want at most %d", n, store.JobChangesCap)
	}
	if _, err := db.ZScore(ctx, store.JobChangesKey, last).Result(); err != nil {
		t.Fatalf("the newest move (%s) was trimmed: %v", last, err)
	}
	if _, _, whole, err := s.Jobs.ChangedSince(ctx, ctxID, old-1); err != nil || whole {
		t.Fatalf("changes since before the trimmed moves: whole=%v, %v; want false", whole, err)
	}
	keys, _, whole, err := s.Jobs.ChangedSince(ctx, ctxID, now.UnixMilli()-1000)
	if err != nil || !whole || !slices.Contains(keys, last) {
		t.Fatalf("changes since the new moves: whole=%v, has the newest %v, %v; want both", whole, slices.Contains(keys, last), err)
	}
}
