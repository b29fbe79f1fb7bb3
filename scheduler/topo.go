package scheduler

import "sort"

// topoSort orders jobs by depth (longest chain of needs above them), ties
// in the given (file) order, and fills in Depth. Needs naming unknown jobs
// are ignored; the flow was validated when created.
func topoSort(jobs []JobState) []JobState {
	pos := make(map[string]int, len(jobs))
	for i, j := range jobs {
		pos[j.Name] = i
	}
	depth := make(map[string]int, len(jobs))
	var visit func(i int, seen map[int]bool) int
	visit = func(i int, seen map[int]bool) int {
		name := jobs[i].Name
		if d, ok := depth[name]; ok {
			return d
		}
		seen[i] = true
		d := 0
		for _, n := range jobs[i].Needs {
			if k, ok := pos[n]; ok && !seen[k] {
				d = max(d, visit(k, seen)+1)
			}
		}
		delete(seen, i)
		depth[name] = d
		return d
	}
	for i := range jobs {
		visit(i, map[int]bool{})
		jobs[i].Depth = depth[jobs[i].Name]
	}
	sort.SliceStable(jobs, func(a, b int) bool { return jobs[a].Depth < jobs[b].Depth })
	return jobs
}
