package metrics

import "github.com/prometheus/client_golang/prometheus"

// The file server's counts (files/transfer.Stats): what this agent sent
// to the agents and actors that fetched its jobs' files, and what it
// fetched from others. Bytes served and fetched are content only, so after
// a resumed transfer they exceed the file's size by what was sent twice
// (served: what was in flight at a cut counts too) and received twice.
var (
	descFileBytes     = prometheus.NewDesc("hyphae_files_served_bytes_total", "Content bytes of job files this agent sent to others.", nil, nil)
	descFileTransfers = prometheus.NewDesc("hyphae_files_transfers_total", "File requests this agent answered, by outcome: ok, refused (the trust rule), busy (at files.max_parallel), not_found.", []string{"outcome"}, nil)
	descFileActive    = prometheus.NewDesc("hyphae_files_transfers_active", "File transfers this agent is sending now.", nil, nil)
	descFileFetched   = prometheus.NewDesc("hyphae_files_fetched_bytes_total", "Content bytes of job files this agent fetched from others, a chunk cut short included.", nil, nil)
)

// collectFiles reports the file server's counts; no series without one.
func (c *collector) collectFiles(ch chan<- prometheus.Metric) {
	if c.h.Files == nil {
		return
	}
	s := c.h.Files()
	counter := func(d *prometheus.Desc, v int64, l ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, float64(v), l...)
	}
	counter(descFileBytes, s.BytesServed)
	counter(descFileFetched, s.BytesFetched)
	counter(descFileTransfers, s.Transfers, "ok")
	counter(descFileTransfers, s.Refused, "refused")
	counter(descFileTransfers, s.Busy, "busy")
	counter(descFileTransfers, s.NotFound, "not_found")
	ch <- prometheus.MustNewConstMetric(descFileActive, prometheus.GaugeValue, float64(s.Active))
}
