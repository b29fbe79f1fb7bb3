package scheduler

import (
	"sort"

	"github.com/hyphae-run/hyphae/scheduler/flowfile"
)

// topoSort orders jobs by depth (longest chain of needs above them), ties
// in the given (file) order, and fills in Depth. Needs naming unknown jobs
// are ignored; the flow was validated when created.
func topoSort(jobs []JobState) []JobState {
	names := make([]string, len(jobs))
	needs := make([][]string, len(jobs))
	for i, j := range jobs {
		names[i], needs[i] = j.Name, j.Needs
	}
	for i, d := range flowfile.Depths(names, needs) {
		jobs[i].Depth = d
	}
	sort.SliceStable(jobs, func(a, b int) bool { return jobs[a].Depth < jobs[b].Depth })
	return jobs
}
