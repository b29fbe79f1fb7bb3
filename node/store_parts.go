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
	return executor.Store{Jobs: st, Queues: st, Flows: st, Registry: st, Logs: st}
}

func janitorStore(st *store.Store) retention.Store {
	return retention.Store{Jobs: st, Bus: st, Flows: st}
}

func bridgeStore(st *store.Store) bridge.Store {
	return bridge.Store{Jobs: st, Queues: st, Bus: st, Flows: st, Events: st, Registry: st, Logs: st}
}

func schedulerStore(st *store.Store) scheduler.Store {
	return scheduler.Store{Jobs: st, Queues: st, Bus: st, Flows: st, Events: st, Timing: st, Registry: st}
}

func controlStore(st *store.Store) control.Store {
	return control.Store{Jobs: st, Queues: st, Bus: st, Flows: st, Timing: st, Events: st, Registry: st, Logs: st, Server: st}
}

func metricsStore(st *store.Store) metrics.Store {
	return metrics.Store{Queues: st, Bus: st, Flows: st, Registry: st}
}
