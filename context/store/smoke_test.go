package store_test

import (
	"context"
	"errors"
	"testing"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/store"
	"github.com/hyphae-run/hyphae/testkit/testredis"
)

func TestJobLifecycleSmoke(t *testing.T) {
	srv := testredis.Start(t)
	ctx := context.Background()
	s, err := store.Open(ctx, srv.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	j := &model.RunnerJob{CallerID: 7, ContextID: 1, Script: "echo hi", ScriptType: "sh"}
	if err := s.Jobs.EnqueueJob(ctx, j); err != nil {
		t.Fatal(err)
	}
	key := store.JobKey(7, j.ID)
	if err := s.Jobs.SetJobStatus(ctx, 1, key, 1, model.JobStarted, nil); err != nil {
		t.Fatal(err)
	}
	if err := s.Jobs.SetJobStatus(ctx, 1, key, 2, model.JobStarted, nil); !errors.Is(err, store.ErrFenced) {
		t.Fatalf("want fenced, got %v", err)
	}
	if err := s.Jobs.CompleteJob(ctx, 1, key, 1, model.JobFinished, model.Hash{"result": `{"a":"b"}`}); err != nil {
		t.Fatal(err)
	}
	if err := s.Jobs.SetJobStatus(ctx, 1, key, 0, model.JobStarted, nil); !errors.Is(err, model.ErrBadTransition) {
		t.Fatalf("want bad transition, got %v", err)
	}
	got, err := s.Jobs.WaitJob(ctx, 1, key)
	if err != nil || got.Result["a"] != "b" || got.Status != model.JobFinished {
		t.Fatalf("got %+v %v", got, err)
	}
	if err := s.Registry.CheckContextID(64); !errors.Is(err, store.ErrBadContext) {
		t.Fatalf("want bad context, got %v", err)
	}
}
