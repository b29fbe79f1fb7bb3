// Package suggest picks the "did you mean" of a misspelt name: flow files'
// keys, job names and script types (scheduler) and the agent's config keys
// (node/config) use the same rule.
package suggest

// Closest returns the candidate closest to s when it is close enough to be
// a typo (edit distance ≤ 2, and less than half of s), else "". Ties go to
// the first candidate.
func Closest(s string, candidates []string) string {
	best, bestD := "", 3
	for _, c := range candidates {
		if d := EditDistance(s, c); d < bestD && 2*d < len(s)+1 {
			best, bestD = c, d
		}
	}
	return best
}

// EditDistance is the Levenshtein distance of a and b (bytes).
func EditDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
