package node

import (
	"context"

	"github.com/hyphae-run/hyphae/context/timers"
)

// startTimers starts the timers (whatever the roles): delayed jobs of
// every context of this agent are queued when due and, with the
// supervisor role, flow schedules start their runs.
func (n *Node) startTimers(ctx context.Context) error {
	var firers []timers.Firer
	if n.sched != nil {
		firers = append(firers, timers.FirerFunc(n.sched.FireSchedules))
	}
	t, err := timers.New(timers.Config{Contexts: n.contextIDs, Firers: firers}, n.store.Timing, n.log.With("part", "timers"))
	if err != nil {
		return err
	}
	if err := t.Start(ctx); err != nil {
		return err
	}
	n.timers = t
	n.parts.timers = part{"timers", t.Shutdown}
	return nil
}
