package control

import (
	"context"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/overlay"
)

// Metrics are the agent's Prometheus series. Counters that other parts
// keep (bridge stats, queue depths, peers) are read at scrape time by a
// collector, so nothing has to be pushed. They exist before the parts
// start, for the runner's JobDone hook; New adds the collector.
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

// NewMetrics makes the job series and the Go and process collectors.
func NewMetrics() *Metrics {
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

// collect adds the collector that reads h's parts at scrape time.
func (m *Metrics) collect(h *Handlers) {
	m.reg.MustRegister(&collector{h: h})
	m.reg.MustRegister(breakerCollector{h: h}) // metrics_breaker.go
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

func (m *Metrics) handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
}

var (
	descQueue      = prometheus.NewDesc("hyphae_queue_depth", "Jobs waiting on queue:<type>, by context and type.", []string{"context", "type"}, nil)
	descOutbox     = prometheus.NewDesc("hyphae_outbox_messages", "Messages awaiting an ack, by context.", []string{"context"}, nil)
	descRetrans    = prometheus.NewDesc("hyphae_bus_retransmits_total", "Messages sent again for lack of an ack.", nil, nil)
	descMsgIn      = prometheus.NewDesc("hyphae_bus_messages_in_total", "Authentic messages received, by type.", []string{"type"}, nil)
	descMsgOut     = prometheus.NewDesc("hyphae_bus_messages_out_total", "Messages sent, by type.", []string{"type"}, nil)
	descRejected   = prometheus.NewDesc("hyphae_bus_rejected_total", "Messages rejected, by reason.", []string{"reason"}, nil)
	descFrames     = prometheus.NewDesc("hyphae_bus_frames_sent_total", "Frames sent to other agents, by path: direct (a stream on an open connection), gossipsub (inbox or relay topic), fallback (a direct send that failed and went through gossipsub).", []string{"path"}, nil)
	descReturn     = prometheus.NewDesc("hyphae_bus_peer_return_total", "Messages sent again at once when their peer came back (resent_on_return), and results kept as late_result from runners whose jobs had been given up on (late_results).", []string{"what"}, nil)
	descConduct    = prometheus.NewDesc("hyphae_bus_conduct_total", "Messages refused after validation and held against their sender (penalized), and frames dropped unjudged because their sender is rate limited for its refusals (limited).", []string{"what"}, nil)
	descDirectRej  = prometheus.NewDesc("hyphae_bus_direct_refused_total", "Direct-stream frames held against their sender (rejected), and times a peer's direct streams were refused for too many (refused).", []string{"what"}, nil)
	descPeersUp    = prometheus.NewDesc("hyphae_peers", "Peers in the peer table, by state.", []string{"state"}, nil)
	descPresence   = prometheus.NewDesc("hyphae_presence_age_seconds", "Seconds since each up peer's last presence record.", []string{"peer"}, nil)
	descFlows      = prometheus.NewDesc("hyphae_flows", "Flows by status.", []string{"status"}, nil)
	descRunning    = prometheus.NewDesc("hyphae_runner_running_jobs", "Jobs running now.", nil, nil)
	descDraining   = prometheus.NewDesc("hyphae_draining", "1 while the agent drains.", nil, nil)
	collectorDescs = []*prometheus.Desc{descReturn, descConduct, descQueue, descOutbox, descRetrans, descMsgIn, descMsgOut, descRejected,
		descFrames, descDirectRej, descPeersUp, descPresence, descFlows, descRunning, descDraining}
)

// collector reads the live values at scrape time.
type collector struct{ h *Handlers }

func (c *collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range collectorDescs {
		ch <- d
	}
}

func (c *collector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	h := c.h
	gauge := func(d *prometheus.Desc, v float64, l ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, l...)
	}
	counter := func(d *prometheus.Desc, v float64, l ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, v, l...)
	}
	c.collectContexts(ctx, gauge)
	c.collectDeadLetters(ctx, counter) // methods_deadletter_retry.go
	if h.Bridge != nil {
		s := h.Bridge.Stats().Snapshot()
		counter(descRetrans, float64(s.Retransmits))
		for k, v := range s.Received {
			counter(descMsgIn, float64(v), k)
		}
		for k, v := range s.Sent {
			counter(descMsgOut, float64(v), k)
		}
		for k, v := range s.Rejected {
			counter(descRejected, float64(v), k)
		}
		counter(descReturn, float64(s.ResentOnReturn), "resent_on_return")
		counter(descReturn, float64(s.LateResults), "late_results")
	}
	fs := h.frameStats()
	counter(descFrames, float64(fs.Direct), "direct")
	counter(descFrames, float64(fs.Published), "gossipsub")
	counter(descFrames, float64(fs.Fallbacks), "fallback")
	counter(descDirectRej, float64(fs.Rejected), "rejected")
	counter(descDirectRej, float64(fs.Refused), "refused")
	counter(descConduct, float64(fs.Penalized), "penalized")
	counter(descConduct, float64(fs.Limited), "limited")
	c.collectPeers(ctx, gauge)
	if h.Runner != nil {
		running, _ := h.Runner.Load()
		gauge(descRunning, float64(running))
	}
	d := 0.0
	if h.Draining() {
		d = 1
	}
	gauge(descDraining, d)
}

func (c *collector) collectContexts(ctx context.Context, gauge func(*prometheus.Desc, float64, ...string)) {
	ids, err := c.h.ContextIDs(ctx)
	if err != nil {
		return
	}
	flows := map[string]float64{}
	for _, id := range ids {
		cs := u64(id)
		for typ, depth := range c.queueDepths(ctx, id) {
			gauge(descQueue, float64(depth), cs, typ)
		}
		if sz, err := c.h.Store.OutboxSize(ctx, id); err == nil {
			gauge(descOutbox, float64(sz), cs)
		}
		if counts, err := c.h.Store.FlowStatusCounts(ctx, id); err == nil {
			for st, v := range counts {
				flows[st] += float64(v)
			}
		}
	}
	for st, v := range flows {
		gauge(descFlows, v, st)
	}
}

// queueDepths reads a context's queue depths with every served type
// present (an empty queue is no Redis key but still a depth of zero) and
// the types nobody serves summed under "other".
func (c *collector) queueDepths(ctx context.Context, id uint64) map[string]int64 {
	out := map[string]int64{}
	var served []string
	if c.h.ScriptTypes != nil {
		served = c.h.ScriptTypes()
	}
	for _, t := range served {
		out[t] = 0
	}
	depths, _ := c.h.Store.QueueDepths(ctx, id)
	for typ, d := range depths {
		if !slices.Contains(served, typ) {
			typ = otherType
		}
		out[typ] += d
	}
	return out
}

func (c *collector) collectPeers(ctx context.Context, gauge func(*prometheus.Desc, float64, ...string)) {
	peers, err := c.h.Store.ListPeers(ctx)
	if err != nil {
		return
	}
	states := map[string]float64{"up": 0, "down": 0}
	now := time.Now()
	for _, p := range peers {
		states[string(p.State)]++
		if p.State == model.PeerUp && p.LastSeen > 0 {
			gauge(descPresence, now.Sub(time.Unix(p.LastSeen, 0)).Seconds(), p.PeerID)
		}
	}
	for st, v := range states {
		gauge(descPeersUp, v, st)
	}
}

// frameStats are the overlay's frame counters (zero without an overlay).
func (h *Handlers) frameStats() overlay.FrameStats {
	if h.Overlay == nil {
		return overlay.FrameStats{}
	}
	return h.Overlay.FrameStats()
}
