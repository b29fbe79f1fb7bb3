package node

import (
	"github.com/hyphae-run/hyphae/context/retention"
	"github.com/hyphae-run/hyphae/context/store"
	"github.com/hyphae-run/hyphae/executor"
	"github.com/hyphae-run/hyphae/node/control"
	"github.com/hyphae-run/hyphae/node/metrics"
	"github.com/hyphae-run/hyphae/overlay/bridge"
	"github.com/hyphae-run/hyphae/scheduler"
)

// The wiring hands each component the store's concern types it declares
// (its Store), so no component names the concrete store.

func runnerStore(st *store.Store) executor.Store {
	return executor.Store{Jobs: st.Jobs, Queues: st.Queues, Flows: st.Flows, Registry: st.Registry, Logs: st.Logs}
}

func janitorStore(st *store.Store) retention.Store {
	return retention.Store{Jobs: st.Jobs, Bus: st.Bus, Flows: st.Flows}
}

func bridgeStore(st *store.Store) bridge.Store {
	return bridge.Store{Jobs: st.Jobs, Queues: st.Queues, Bus: st.Bus, Flows: st.Flows, Events: st.Events, Registry: st.Registry, Logs: st.Logs}
}

func schedulerStore(st *store.Store) scheduler.Store {
	return scheduler.Store{Jobs: st.Jobs, Queues: st.Queues, Bus: st.Bus, Flows: st.Flows, Events: st.Events, Timing: st.Timing, Registry: st.Registry}
}

func controlStore(st *store.Store) control.Store {
	return control.Store{Jobs: st.Jobs, Queues: st.Queues, Bus: st.Bus, Flows: st.Flows, Timing: st.Timing, Events: st.Events, Registry: st.Registry, Logs: st.Logs, Server: st}
}

func metricsStore(st *store.Store) metrics.Store {
	return metrics.Store{Queues: st.Queues, Bus: st.Bus, Flows: st.Flows, Registry: st.Registry}
}
