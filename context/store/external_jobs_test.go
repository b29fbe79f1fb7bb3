package store_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/store"
)

// A received job that an external worker ends by HSET is handed to
// remote_done once, however often its end is reported (the watch, then
// the worker's result message); a job that came from no other agent is
// refused with ErrNotRemote.
func TestEndExternalSendsAJobsEndHomeOnce(t *testing.T) {
	ctx := ctCtx(t)
	s, srv := ctOpen(t)
	if err := s.Registry.CreateContext(ctx, &model.Context{ID: 1}); err != nil {
		t.Fatal(err)
	}
	db := srv.Client(t, 1)
	db.HSet(ctx, "job:3:1", "id", "1", "caller_id", "3", "script", "x", "script_type", "v",
		"status", "started", model.ExtraOriginPeer, "12D3KooWpeer")
	db.HSet(ctx, "job:3:2", "id", "2", "caller_id", "3", "script", "x", "script_type", "v", "status", "started")
	if err := s.Jobs.WatchExternal(ctx, 1, "job:3:1"); err != nil {
		t.Fatal(err)
	}
	if ended, _ := s.Jobs.ExternalEnded(ctx, 1, 10); len(ended) != 0 {
		t.Fatalf("a running watched job is listed as ended: %v", ended)
	}
	db.HSet(ctx, "job:3:1", "status", "finished", "result", `{"a":"1"}`)
	if ended, _ := s.Jobs.ExternalEnded(ctx, 1, 10); !slices.Equal(ended, []string{"job:3:1"}) {
		t.Fatalf("ended watched jobs %v, want job:3:1", ended)
	}
	for i, want := range []store.ExternalOutcome{store.ExternalSent, store.ExternalAlready, store.ExternalAlready} {
		st := model.JobStatus("")
		if i == 2 {
			st = model.JobFinished // the worker's result message, after its HSET
		}
		out, err := s.Jobs.EndExternal(ctx, 1, "job:3:1", st, nil)
		if err != nil || out != want {
			t.Fatalf("report %d: %v %v, want %v", i+1, out, err, want)
		}
	}
	if n := db.LLen(ctx, store.RemoteDoneKey).Val(); n != 1 {
		t.Fatalf("remote_done holds %d entries, want the job once", n)
	}
	if n := db.ZCard(ctx, store.ExternalJobsKey).Val(); n != 0 {
		t.Fatalf("the job is still watched (%d)", n)
	}
	if _, err := s.Jobs.EndExternal(ctx, 1, "job:3:2", model.JobFinished, nil); !errors.Is(err, store.ErrNotRemote) {
		t.Fatalf("a local job: %v, want ErrNotRemote", err)
	}
}
