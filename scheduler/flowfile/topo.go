package flowfile

// Depths gives each job its depth: the longest chain of needs above it (0
// for a job that needs none). needs[i] names what job names[i] needs;
// names not among names are ignored, and so is a need that would close a
// cycle (a validated flow has none).
func Depths(names []string, needs [][]string) []int {
	pos := make(map[string]int, len(names))
	for i, n := range names {
		pos[n] = i
	}
	depth := make(map[string]int, len(names))
	var visit func(i int, seen map[int]bool) int
	visit = func(i int, seen map[int]bool) int {
		name := names[i]
		if d, ok := depth[name]; ok {
			return d
		}
		seen[i] = true
		d := 0
		for _, n := range needs[i] {
			if k, ok := pos[n]; ok && !seen[k] {
				d = max(d, visit(k, seen)+1)
			}
		}
		delete(seen, i)
		depth[name] = d
		return d
	}
	out := make([]int, len(names))
	for i := range names {
		visit(i, map[int]bool{})
		out[i] = depth[names[i]]
	}
	return out
}
