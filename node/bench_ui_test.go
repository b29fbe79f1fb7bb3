package node_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/store"
)

// BenchmarkUIJobsView measures the dashboard's API calls on a context of
// 100,000 jobs (written straight into Redis), beside job.list: of 50 jobs
// out of the same 100,000 (what a client without job.page pays), and of
// a context that holds 50.
//
//	go test -run '^$' -bench BenchmarkUIJobsView -benchtime 20x ./node/
func BenchmarkUIJobsView(b *testing.B) {
	a := startAgent(b, agentOpts{roles: []string{"supervisor"}})
	for _, id := range []int{1, 2} {
		a.call(b, "context.create", map[string]any{"id": id}, nil)
	}
	start := time.Now()
	seedJobs(b, a.Store(), 1, 100_000)
	seedJobs(b, a.Store(), 2, 50)
	b.Logf("seeded 100,050 jobs in %v", time.Since(start).Round(time.Millisecond))
	db, err := a.Store().DB(1)
	if err != nil {
		b.Fatal(err)
	}
	first := time.Now() // the first job.page reads every brief (SCAN) and fills the job index
	a.call(b, "job.page", map[string]any{"context": 1, "limit": 50}, nil)
	b.Logf("first job.page at 100k (full read, index backfilled): %v", time.Since(first).Round(time.Millisecond))
	b.Run("100k/full_read_JobBriefs", func(b *testing.B) { // the read every cold call made before the index
		for b.Loop() {
			if _, err := a.Store().Jobs.JobBriefs(context.Background(), 1); err != nil {
				b.Fatal(err)
			}
		}
	})
	bump := 0 // a new key per cold call: the key count grows each time
	// cold calls come after a change of the context's key count, so the
	// agent reads what changed since (the job index, job_changes); warm
	// ones page a context whose briefs it holds (store.BriefCache).
	for _, c := range []struct {
		name   string
		method string
		params map[string]any
		cold   bool
	}{
		{"100k/job.page_cold", "job.page", map[string]any{"context": 1, "limit": 50}, true},
		{"100k/job.page_warm", "job.page", map[string]any{"context": 1, "limit": 50}, false},
		{"100k/job.page_offset_50000_warm", "job.page", map[string]any{"context": 1, "limit": 50, "offset": 50000}, false},
		{"100k/job.page_filtered_warm", "job.page", map[string]any{"context": 1, "limit": 50, "status": "error", "type": "python"}, false},
		{"100k/ui.stats_cold", "ui.stats", map[string]any{"context": 1}, true},
		{"100k/job.list_limit_50", "job.list", map[string]any{"context": 1, "limit": 50}, false},
		{"50/job.list", "job.list", map[string]any{"context": 2}, false},
		{"50/job.page", "job.page", map[string]any{"context": 2, "limit": 50}, false},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if c.cold {
					b.StopTimer()
					bump++
					if err := db.Set(context.Background(), fmt.Sprintf("bench:bump:%d", bump), "1", 0).Err(); err != nil {
						b.Fatal(err)
					}
					b.StartTimer()
				}
				var out any
				if err := a.client.Call(context.Background(), c.method, c.params, &out); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// seedJobs writes n ended and waiting jobs of mixed types into context
// ctxID's DB in pipelines, created over the last hour.
func seedJobs(b *testing.B, st *store.Store, ctxID uint64, n int) {
	b.Helper()
	db, err := st.DB(ctxID)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	now := time.Now().Unix()
	statuses := []model.JobStatus{model.JobFinished, model.JobFinished, model.JobFinished, model.JobError, model.JobDispatched}
	types := []string{"sh", "python", "bash"}
	for lo := 0; lo < n; lo += 1000 {
		_, err := db.Pipelined(ctx, func(p redis.Pipeliner) error {
			for i := lo; i < min(n, lo+1000); i++ {
				created := now - 3600 + int64(i)*3600/int64(n)
				j := &model.RunnerJob{ID: uint64(i + 1), CallerID: 1, ContextID: ctxID, Name: fmt.Sprintf("job-%d", i),
					ScriptType: types[i%len(types)], Script: "echo " + fmt.Sprint(i), Status: statuses[i%len(statuses)],
					Result: map[string]string{"exit_code": "0", "stdout": "some output line"}, Attempt: 1,
					CreatedAt: created, UpdatedAt: created + 2}
				p.HSet(ctx, store.JobKey(j.CallerID, j.ID), j.ToHash())
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
}
