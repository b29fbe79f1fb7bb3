package model_test

import (
	"reflect"
	"testing"

	"github.com/hyphae-run/hyphae/context/model"
)

// A seed client names external prerequisites (seed 001: []string); before,
// such a job failed to decode and broke every listing of its context.
func TestPrerequisitesAreNames(t *testing.T) {
	j, err := model.JobFromHash("job:1:1", model.Hash{"prerequisites": `["file:/srv/data.csv", "db"]`})
	if err != nil {
		t.Fatalf("a list of names: %v", err)
	}
	if !reflect.DeepEqual(j.Prerequisites, []string{"file:/srv/data.csv", "db"}) {
		t.Fatalf("prerequisites = %q", j.Prerequisites)
	}
	if got := j.ToHash()["prerequisites"]; got != `["file:/srv/data.csv","db"]` {
		t.Fatalf("written as %s", got)
	}
}

// Hashes stored before kept ids there as numbers: they still decode, and
// are written back byte for byte.
func TestOldNumericPrerequisitesStillDecode(t *testing.T) {
	j, err := model.JobFromHash("job:1:1", model.Hash{"prerequisites": `[1, "2", 30]`})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(j.Prerequisites, []string{"1", "2", "30"}) {
		t.Fatalf("prerequisites = %q", j.Prerequisites)
	}
	if got := j.ToHash()["prerequisites"]; got != `[1,2,30]` {
		t.Fatalf("written as %s", got)
	}
}

// A flow job stored before keeps its upstream ids in prerequisites and its
// downstream ids in dependends; one stored now keeps upstream ids in
// dependends (docs/design.md, "How Hyphae reads the specifications it follows"). Upstream reads both.
func TestUpstreamOfOldAndNewFlowJobs(t *testing.T) {
	old := &model.RunnerJob{FlowID: 3, Prerequisites: []string{"1", "2"}, Dependends: []uint64{9}}
	if got := old.Upstream(); !reflect.DeepEqual(got, []uint64{1, 2}) {
		t.Fatalf("old flow job upstream = %v", got)
	}
	if got := old.ExternalPrerequisites(); got != nil {
		t.Fatalf("old flow job external prerequisites = %q", got)
	}
	nw := &model.RunnerJob{FlowID: 3, Prerequisites: []string{"lock"}}
	nw.SetUpstream([]uint64{1, 2})
	back, err := model.JobFromHash("job:1:5", nw.ToHash())
	if err != nil {
		t.Fatal(err)
	}
	if got := back.Upstream(); !reflect.DeepEqual(got, []uint64{1, 2}) {
		t.Fatalf("new flow job upstream = %v", got)
	}
	if got := back.ExternalPrerequisites(); !reflect.DeepEqual(got, []string{"lock"}) {
		t.Fatalf("new flow job external prerequisites = %q", got)
	}
	plain := &model.RunnerJob{Dependends: []uint64{4}, Prerequisites: []string{"5"}}
	if !reflect.DeepEqual(plain.Upstream(), []uint64{4}) || !reflect.DeepEqual(plain.ExternalPrerequisites(), []string{"5"}) {
		t.Fatalf("plain job: upstream %v, prerequisites %q", plain.Upstream(), plain.ExternalPrerequisites())
	}
}
