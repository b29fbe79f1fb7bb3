package metrics

import (
	"context"
	"strconv"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/hyphae-run/hyphae/context/store"
)

// descDeadLetters counts, per context, what went to the dead letters and
// why, kept in Redis (dead_letter:counts) so that it survives restarts.
var descDeadLetters = prometheus.NewDesc("hyphae_dead_letters_total",
	"Jobs and messages put in a context's dead letters, by context and reason: invalid (decode or validation error), "+
		"unusable (a queue entry naming no job), failures (quarantined after failing quarantine.after_failures times in a row).",
	[]string{"context", "reason"}, nil)

func init() { collectorDescs = append(collectorDescs, descDeadLetters) }

// collectDeadLetters reads every context's dead-letter counts
// (hyphae_dead_letters_total); the three reasons are always present.
func (c *collector) collectDeadLetters(ctx context.Context, counter func(*prometheus.Desc, float64, ...string)) {
	ids, err := c.h.ContextIDs(ctx)
	if err != nil {
		return
	}
	for _, id := range ids {
		counts, err := c.h.Store.Bus.DeadLetterCounts(ctx, id)
		if err != nil {
			continue
		}
		for _, class := range []string{store.DeadInvalid, store.DeadUnusable, store.DeadFailures} {
			counter(descDeadLetters, float64(counts[class]), strconv.FormatUint(id, 10), class)
		}
	}
}
