package metrics

import (
	"context"
	"slices"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/executor"
	"github.com/hyphae-run/hyphae/files/transfer"
	"github.com/hyphae-run/hyphae/overlay"
	"github.com/hyphae-run/hyphae/overlay/bridge"
)

// Sources are the parts the collectors read at scrape time; nil parts
// (no bridge, overlay or runner) have no series.
type Sources struct {
	Store       Store
	Bridge      *bridge.Bridge
	Overlay     *overlay.Overlay
	Runner      *executor.Runner
	ScriptTypes func() []string                         // the types this agent's runner runs
	ContextIDs  func(context.Context) ([]uint64, error) // this agent's contexts
	Draining    func() bool                             // the agent refuses new work
	Files       func() transfer.Stats                   // the file server's counts (files.go)
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
		descFrames, descDirectRej, descPeersUp, descPresence, descFlows, descRunning, descDraining,
		descFileBytes, descFileTransfers, descFileActive}
)

// collector reads the live values at scrape time.
type collector struct{ h Sources }

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
	c.collectDeadLetters(ctx, counter) // dead_letters.go
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
	c.collectFiles(ch)
}

func (c *collector) collectContexts(ctx context.Context, gauge func(*prometheus.Desc, float64, ...string)) {
	ids, err := c.h.ContextIDs(ctx)
	if err != nil {
		return
	}
	flows := map[string]float64{}
	for _, id := range ids {
		cs := strconv.FormatUint(id, 10)
		for typ, depth := range c.queueDepths(ctx, id) {
			gauge(descQueue, float64(depth), cs, typ)
		}
		if sz, err := c.h.Store.Bus.OutboxSize(ctx, id); err == nil {
			gauge(descOutbox, float64(sz), cs)
		}
		if counts, err := c.h.Store.Flows.FlowStatusCounts(ctx, id); err == nil {
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
	depths, _ := c.h.Store.Queues.QueueDepths(ctx, id)
	for typ, d := range depths {
		if !slices.Contains(served, typ) {
			typ = otherType
		}
		out[typ] += d
	}
	return out
}

func (c *collector) collectPeers(ctx context.Context, gauge func(*prometheus.Desc, float64, ...string)) {
	peers, err := c.h.Store.Registry.ListPeers(ctx)
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
func (h Sources) frameStats() overlay.FrameStats {
	if h.Overlay == nil {
		return overlay.FrameStats{}
	}
	return h.Overlay.FrameStats()
}
