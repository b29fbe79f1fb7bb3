// Package metrics holds the agent's Prometheus series: the runner's job
// counters, pushed by its hooks, and collectors that read the other
// parts' counters (the bus's, the overlay's, the breakers, queue depths,
// peers, flows, dead letters) at scrape time, so nothing has to be
// pushed. The control API serves them on GET /metrics.
package metrics
