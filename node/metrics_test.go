package node_test

import (
	"context"
	"regexp"
	"strconv"
	"testing"

	"github.com/hyphae-run/hyphae/node/api/wire"
)

func metricValue(t *testing.T, a *agent, series string) float64 {
	t.Helper()
	code, body, err := a.client.Get(context.Background(), "/metrics")
	if err != nil || code != 200 {
		t.Fatalf("/metrics: %d %v", code, err)
	}
	re := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(series) + ` ([0-9.e+-]+)$`)
	m := re.FindSubmatch(body)
	if m == nil {
		return 0
	}
	v, _ := strconv.ParseFloat(string(m[1]), 64)
	return v
}

// Metrics move when jobs run: job counters by type and outcome, the
// duration histogram, and the bus counters of a cross-agent job.
func TestMetricsMoveWhenJobsRun(t *testing.T) {
	t.Parallel()
	b := startAgent(t, agentOpts{})
	a := startAgent(t, agentOpts{bootstrap: []string{b.addr(t)}})
	finished := `hyphae_jobs_total{outcome="finished",type="sh"}`
	failed := `hyphae_jobs_total{outcome="error",type="sh"}`
	if v := metricValue(t, b, finished); v != 0 {
		t.Fatalf("before any job: %v", v)
	}
	b.call(t, "context.create", map[string]any{"id": 1}, nil)
	b.call(t, "context.grant", map[string]any{"id": 1, "actor": a.peerID(), "role": "executor"}, nil)
	for _, script := range []string{"true", "true", "exit 1"} {
		var j wire.JobView
		b.call(t, "job.run", map[string]any{"context": 1, "type": "sh", "script": script}, &j)
		waitJob(t, b, 1, j.Key)
	}
	if v := metricValue(t, b, finished); v != 2 {
		t.Errorf("%s = %v, want 2", finished, v)
	}
	if v := metricValue(t, b, failed); v != 1 {
		t.Errorf("%s = %v, want 1", failed, v)
	}
	if v := metricValue(t, b, `hyphae_job_duration_seconds_count{type="sh"}`); v != 3 {
		t.Errorf("duration histogram count = %v, want 3", v)
	}
	var j wire.JobView
	a.call(t, "job.run", map[string]any{"to": b.peerID(), "context": 1, "type": "sh", "script": "true"}, &j)
	waitJob(t, a, j.ContextID, j.Key)
	if v := metricValue(t, a, `hyphae_bus_messages_out_total{type="job"}`); v < 1 {
		t.Errorf("origin sent %v job messages", v)
	}
	if v := metricValue(t, b, `hyphae_bus_messages_in_total{type="job"}`); v < 1 {
		t.Errorf("runner received %v job messages", v)
	}
	// The agents are connected: the job went on a direct stream (unless
	// the direct shortcut is off: HYPHAE_TEST_BUS_PLAIN).
	if v := metricValue(t, a, `hyphae_bus_frames_sent_total{path="direct"}`); v < 1 && !testBusPlain() {
		t.Errorf("origin sent %v frames on direct streams", v)
	}
	if v := metricValue(t, a, `hyphae_bus_frames_sent_total{path="fallback"}`); v != 0 {
		t.Errorf("origin fell back to gossipsub %v times", v)
	}
	if v := metricValue(t, a, `hyphae_peers{state="up"}`); v != 1 {
		t.Errorf("peers up = %v", v)
	}
}

// Flow counts by status come from the flows' status fields.
func TestMetricsCountFlows(t *testing.T) {
	t.Parallel()
	a := startAgent(t, agentOpts{})
	a.call(t, "context.create", map[string]any{"id": 1}, nil)
	var fv wire.FlowView
	a.call(t, "flow.create", map[string]any{"file_name": "f.yaml", "start": true,
		"file_content": "name: f\ncontext: 1\njobs:\n  a: {type: sh, script: 'true'}\n"}, &fv)
	a.call(t, "flow.wait", map[string]any{"context": 1, "id": fv.ID, "timeout": 30}, &fv)
	if v := metricValue(t, a, `hyphae_flows{status="finished"}`); v != 1 {
		t.Fatalf(`hyphae_flows{status="finished"} = %v, want 1 (flow %s)`, v, fv.Status)
	}
}

// An empty queue reports a depth of zero (it is no Redis key): a
// dashboard sees the series drop to 0, not vanish.
func TestMetricsQueueDepthAtZero(t *testing.T) {
	t.Parallel()
	a := startAgent(t, agentOpts{})
	a.call(t, "context.create", map[string]any{"id": 1}, nil)
	_, body, err := a.client.Get(context.Background(), "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	want := regexp.MustCompile(`(?m)^hyphae_queue_depth\{context="1",type="sh"\} 0$`)
	if !want.Match(body) {
		t.Fatalf("no zero depth for queue:sh in context 1:\n%s", regexp.MustCompile(`(?m)^hyphae_queue.*$`).FindAll(body, -1))
	}
}
