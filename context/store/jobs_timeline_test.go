package store_test

import (
	"slices"
	"testing"

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
