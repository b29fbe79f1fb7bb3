package store_test

import (
	"testing"
	"time"
)

// A job hash written straight into Redis without created_at is created
// when the agent first reads it (not in 1970), the same on every later
// read and in every view (job load, job list, the dashboard's briefs); a
// job with a created_at keeps it.
func TestJobWithoutCreatedAtIsCreatedAtFirstSight(t *testing.T) {
	s, srv := ctOpen(t)
	ctx := ctCtx(t)
	raw := srv.Client(t, 1)
	raw.HSet(ctx, "job:1:7", "id", 7, "caller_id", 1, "script", "x", "script_type", "sh", "status", "dispatched")
	raw.HSet(ctx, "job:1:8", "id", 8, "caller_id", 1, "script", "x", "script_type", "sh", "status", "dispatched",
		"created_at", "0")
	raw.HSet(ctx, "job:1:9", "id", 9, "caller_id", 1, "script", "x", "script_type", "sh", "status", "dispatched",
		"created_at", "1700000000")
	before := time.Now().Unix()
	j, err := s.Jobs.LoadJobKey(ctx, 1, "job:1:7")
	if err != nil {
		t.Fatal(err)
	}
	if j.CreatedAt < before || j.CreatedAt > time.Now().Unix() {
		t.Fatalf("created_at %d at first sight; want now (%d)", j.CreatedAt, before)
	}
	if got := raw.HGet(ctx, "job:1:7", "created_at").Val(); got == "" {
		t.Fatal("created_at not written on the hash")
	}
	time.Sleep(1100 * time.Millisecond)
	again, _ := s.Jobs.LoadJobKey(ctx, 1, "job:1:7")
	if again.CreatedAt != j.CreatedAt {
		t.Fatalf("created_at %d on the second read, %d on the first; want the same", again.CreatedAt, j.CreatedAt)
	}
	want := map[uint64]int64{7: j.CreatedAt, 9: 1700000000}
	js, err := s.Jobs.ListJobs(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, j := range js {
		if w, ok := want[j.ID]; ok && j.CreatedAt != w {
			t.Errorf("job list: job %d created_at %d, want %d", j.ID, j.CreatedAt, w)
		}
		if j.ID == 8 {
			if j.CreatedAt < before || j.CreatedAt > time.Now().Unix() {
				t.Errorf("job list: job 8 (created_at 0) created_at %d; want now", j.CreatedAt)
			}
			want[8] = j.CreatedAt
		}
	}
	bs, err := s.Jobs.JobBriefs(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range bs {
		if w := want[b.ID]; b.CreatedAt != w || w == 0 {
			t.Errorf("briefs: job %d created_at %d, want %d", b.ID, b.CreatedAt, w)
		}
	}
}
