package node_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/store"
	"github.com/hyphae-run/hyphae/node/api/wire"
)

// job.page reads a context's jobs through its job index: jobs a seed
// client wrote straight into Redis (not indexed) are there on the first
// read and indexed by it; a job created after, and a job that moved,
// show on the next read at once, though the agent keeps the briefs it
// read.
func TestJobPageIndexBackfillsAndFollowsChanges(t *testing.T) {
	t.Parallel()
	a := startAgent(t, agentOpts{roles: []string{"supervisor"}})
	a.call(t, "context.create", map[string]any{"id": 1}, nil)
	db, err := a.Store().DB(1)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for i := 1; i <= 3; i++ { // a seed client's jobs: no index, no timeline
		j := &model.RunnerJob{ID: uint64(1000 + i), CallerID: 9, ContextID: 1, ScriptType: "sh", Script: "true",
			Status: model.JobFinished, Name: fmt.Sprintf("raw%d", i), CreatedAt: 1700000000 + int64(i), UpdatedAt: 1700000000 + int64(i)}
		if err := db.HSet(ctx, store.JobKey(j.CallerID, j.ID), j.ToHash()).Err(); err != nil {
			t.Fatal(err)
		}
	}
	var p wire.JobPage
	a.call(t, "job.page", map[string]any{"context": 1}, &p)
	if p.Total != 3 || p.Jobs[0].Name != "raw3" {
		t.Fatalf("first read: total %d (%+v), want the 3 raw jobs, newest first", p.Total, p.Counts)
	}
	if n := db.ZCard(ctx, store.JobIndexKey).Val(); n != 3 {
		t.Fatalf("after the first read the index holds %d jobs, want 3", n)
	}

	var j wire.JobView
	a.call(t, "job.create", map[string]any{"context": 1, "type": "sh", "script": "true", "name": "new"}, &j)
	a.call(t, "job.page", map[string]any{"context": 1}, &p)
	if p.Total != 4 || p.Jobs[0].Key != j.Key {
		t.Fatalf("after job.create: total %d, first %s; want 4, %s", p.Total, p.Jobs[0].Key, j.Key)
	}
	if err := a.Store().Jobs.SetJobStatus(ctx, 1, j.Key, 0, model.JobError, model.Hash{"error": "boom"}); err != nil {
		t.Fatal(err)
	}
	a.call(t, "job.page", map[string]any{"context": 1, "status": "error"}, &p)
	if p.Total != 1 || p.Jobs[0].Key != j.Key || p.Counts["finished"] != 3 {
		t.Fatalf("after the job moved to error: total %d, counts %v; want it alone under error", p.Total, p.Counts)
	}
}
