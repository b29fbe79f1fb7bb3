package flowfile

import closest "github.com/hyphae-run/hyphae/internal/suggest"

// suggest returns the candidate closest to s when it is close enough to be
// a typo, else "" (suggest.Closest: the agent's config keys use the same).
func suggest(s string, candidates []string) string {
	return closest.Closest(s, candidates)
}
