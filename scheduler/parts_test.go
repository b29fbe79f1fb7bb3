package scheduler_test

import (
	"github.com/hyphae-run/hyphae/context/store"
	"github.com/hyphae-run/hyphae/scheduler"
)

// parts hands the scheduler the store's concern types.
func parts(st *store.Store) scheduler.Store {
	return scheduler.Store{Jobs: st.Jobs, Queues: st.Queues, Bus: st.Bus, Flows: st.Flows, Events: st.Events, Timing: st.Timing, Registry: st.Registry}
}
