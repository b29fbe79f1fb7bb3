package metrics

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/hyphae-run/hyphae/overlay/bridge"
)

var (
	descBreakerState = prometheus.NewDesc("hyphae_breaker_state",
		"This agent's circuit breaker for each peer it has seen fault: 0 closed, 1 open, 2 half-open (docs/breakers.md).",
		[]string{"peer"}, nil)
	descBreakerTrips = prometheus.NewDesc("hyphae_breaker_trips_total",
		"Times this agent's circuit breaker for a peer opened.", []string{"peer"}, nil)
)

// breakerStateValue is a breaker state as hyphae_breaker_state counts it.
var breakerStateValue = map[string]float64{bridge.BreakerClosed: 0, bridge.BreakerOpen: 1, bridge.BreakerHalfOpen: 2}

// breakerCollector reads the bridge's circuit breakers at scrape time:
// one series per peer that has faulted (a peer never seen fault has a
// closed breaker and no series).
type breakerCollector struct{ h Sources }

func (c breakerCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- descBreakerState
	ch <- descBreakerTrips
}

func (c breakerCollector) Collect(ch chan<- prometheus.Metric) {
	if c.h.Bridge == nil {
		return
	}
	for _, s := range c.h.Bridge.Breakers() {
		ch <- prometheus.MustNewConstMetric(descBreakerState, prometheus.GaugeValue, breakerStateValue[s.State], s.Peer)
		ch <- prometheus.MustNewConstMetric(descBreakerTrips, prometheus.CounterValue, float64(s.Trips), s.Peer)
	}
}
