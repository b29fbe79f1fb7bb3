package retention

import (
	"cmp"
	"slices"
	"time"

	"github.com/hyphae-run/hyphae/context/store"
)

// rules are one Prune's limits: objects that ended at or before cutoff
// (unix s) go, and so do those beyond the count kept; orphan directories
// go once unchanged for orphanGrace; dry removes nothing.
type rules struct {
	cutoff      int64
	orphanGrace time.Duration
	dry         bool
}

// pick returns the items to remove: the newest keep items stay, unless
// they ended at or before cutoff; every older one goes. An item without a
// usable updated_at (At 0) counts as the oldest and goes by the count
// alone, never by its age.
func pick(items []store.Ended, keep int, cutoff int64) []store.Ended {
	slices.SortFunc(items, func(a, b store.Ended) int {
		if c := cmp.Compare(b.At, a.At); c != 0 {
			return c
		}
		return cmp.Compare(b.Key, a.Key)
	})
	var out []store.Ended
	for i, e := range items {
		if i >= keep || (e.At > 0 && e.At <= cutoff) {
			out = append(out, e)
		}
	}
	return out
}

// batches splits items into runs of at most n items, each holding at most
// maxJobs jobs of flows (a flow counts as one job at least), so that no
// script call gets more than a few hundred keys.
func batches(items []store.Ended, n, maxJobs int) [][]store.Ended {
	var out [][]store.Ended
	start, jobs := 0, 0
	for i, e := range items {
		w := max(1, len(e.Jobs))
		if i > start && (i-start >= n || jobs+w > maxJobs) {
			out = append(out, items[start:i])
			start, jobs = i, 0
		}
		jobs += w
	}
	if start < len(items) {
		out = append(out, items[start:])
	}
	return out
}
