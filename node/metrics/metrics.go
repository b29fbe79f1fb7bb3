package metrics

import (
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/hyphae-run/hyphae/context/model"
)

// Metrics are the agent's Prometheus series. Counters that other parts
// keep (bridge stats, queue depths, peers) are read at scrape time by a
// collector, so nothing has to be pushed. They exist before the parts
// start, for the runner's JobDone hook; Collect adds the collectors.
type Metrics struct {
	reg      *prometheus.Registry
	jobs     *prometheus.CounterVec
	duration *prometheus.HistogramVec

	mu      sync.Mutex
	started map[startKey]time.Time // guarded by mu; attempts running here
	types   func() []string        // guarded by mu; the runner's served types
}

// startKey names a job in a context (one attempt at a time runs here).
type startKey struct{ ctx, job uint64 }

// otherType is the type label of every script type this agent does not
// serve, so a refused type cannot add series.
const otherType = "other"

// New makes the job series and the Go and process collectors.
func New() *Metrics {
	m := &Metrics{
		reg: prometheus.NewRegistry(),
		jobs: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "hyphae_jobs_total", Help: "Jobs this agent's runner ended, by script type and outcome.",
		}, []string{"type", "outcome"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "hyphae_job_duration_seconds", Help: "Time from a job's start on this runner to its end, by script type.",
			Buckets: []float64{0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 15, 60, 300, 1800, 3600},
		}, []string{"type"}),
		started: map[startKey]time.Time{},
	}
	m.reg.MustRegister(m.jobs, m.duration,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// Collect adds the collectors that read the parts in src at scrape time.
func (m *Metrics) Collect(src Sources) {
	m.reg.MustRegister(&collector{h: src})
	m.reg.MustRegister(breakerCollector{h: src}) // breaker.go
}

// ServedTypes tells m which script types the runner serves; others are
// counted under the type label "other".
func (m *Metrics) ServedTypes(fn func() []string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.types = fn
}

// typeLabel bounds the type label to the served types.
func (m *Metrics) typeLabel(t string) string {
	m.mu.Lock()
	fn := m.types
	m.mu.Unlock()
	if fn != nil && slices.Contains(fn(), t) {
		return t
	}
	return otherType
}

// JobStarted notes when an attempt starts (hooked to the runner).
func (m *Metrics) JobStarted(ctxID uint64, j *model.RunnerJob) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.started[startKey{ctxID, j.ID}] = time.Now()
}

// JobDone counts an ended job and observes how long its attempt ran
// (hooked to the runner). A job that ended before it started has no
// duration.
func (m *Metrics) JobDone(ctxID uint64, j *model.RunnerJob) {
	typ := m.typeLabel(j.ScriptType)
	m.jobs.WithLabelValues(typ, string(j.Status)).Inc()
	k := startKey{ctxID, j.ID}
	m.mu.Lock()
	at, ok := m.started[k]
	delete(m.started, k)
	m.mu.Unlock()
	if ok {
		m.duration.WithLabelValues(typ).Observe(time.Since(at).Seconds())
	}
}

// Handler serves the series (the API's GET /metrics).
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
}
