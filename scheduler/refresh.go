package scheduler

import (
	"context"
	"time"
)

// Refresh starts serving contexts that appeared since the last periodic
// refresh, now (the node calls it when a context is created).
func (s *Scheduler) Refresh() {
	if !s.running() {
		return
	}
	ctx, cancel := context.WithTimeout(s.ctx, 5*time.Second)
	defer cancel()
	ids, err := s.contexts(ctx)
	if err != nil {
		return
	}
	for _, id := range ids {
		s.ensureLoop(id)
	}
}
