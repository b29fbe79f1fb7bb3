package node_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/hyphae-run/hyphae/context/store"
	"github.com/hyphae-run/hyphae/node/api/wire"
)

// benchStartScript writes when it started (unix µs, bash's clock, no
// process spawned for it) as its result t.
const benchStartScript = `echo "t=${EPOCHREALTIME/./}" >> "$HYPHAE_RESULT"`

// BenchmarkEventToFirstJob measures, on one agent, from event.publish to
// the moment the first job of the run it triggers starts (the job's own
// clock), beside job.run's submit to start of the same job, in the same
// loop, one of each per iteration: event-p50-µs, job-p50-µs and
// ratio-p50 (event over job).
func BenchmarkEventToFirstJob(b *testing.B) {
	a := startAgent(b, agentOpts{unixRedis: true})
	a.call(b, "context.create", map[string]any{"id": 1}, nil)
	flow := "name: bench-on\ncontext: 1\non: {event: bench.go}\njobs:\n  first: {type: bash, script: '" +
		benchStartScript + "'}\n"
	a.call(b, "event.trigger.add", wire.TriggerAddParams{FileContent: flow, FileName: "bench.yaml"}, nil)
	var ev, job []time.Duration
	b.ResetTimer()
	for i := range b.N {
		ev = append(ev, eventToStart(b, a, i))
		job = append(job, jobToStart(b, a))
	}
	b.StopTimer()
	pe, pj := p50(ev), p50(job)
	b.ReportMetric(float64(pe.Microseconds()), "event-p50-µs")
	b.ReportMetric(float64(pj.Microseconds()), "job-p50-µs")
	b.ReportMetric(float64(pe)/float64(pj), "ratio-p50")
}

// eventToStart publishes event i and returns how long its run's first
// job took to start.
func eventToStart(b *testing.B, a *agent, i int) time.Duration {
	id := fmt.Sprintf("bench-%d-%d", time.Now().UnixNano(), i)
	start := time.Now()
	a.call(b, "event.publish", wire.EventPublishParams{Context: 1, Name: "bench.go", ID: id,
		Data: json.RawMessage(`{"i": ` + strconv.Itoa(i) + `}`)}, nil)
	db := a.redis.Client(b, 1)
	var flowID uint64
	eventually(b, 30*time.Second, "the run of event "+id, func() bool {
		v, _ := db.HGet(b.Context(), store.EventRunsKey(id), "bench-on").Result()
		flowID, _ = strconv.ParseUint(v, 10, 64)
		return flowID != 0
	})
	var v wire.FlowView
	a.call(b, "flow.status", wire.FlowRef{Context: 1, ID: flowID}, &v)
	for !v.Terminal() {
		var next wire.FlowView
		a.call(b, "flow.wait", wire.FlowWaitParams{FlowRef: wire.FlowRef{Context: 1, ID: flowID},
			Timeout: 30, After: v.Version}, &next)
		v = next
	}
	return startedAfter(b, jobOfB(b, &v, "first"), start)
}

// jobToStart submits the same job with job.run and returns how long it
// took to start.
func jobToStart(b *testing.B, a *agent) time.Duration {
	start := time.Now()
	var j wire.JobView
	a.call(b, "job.run", map[string]any{"context": 1, "type": "bash", "script": benchStartScript, "wait": 60}, &j)
	return startedAfter(b, j.Result, start)
}

func startedAfter(b *testing.B, res map[string]string, start time.Time) time.Duration {
	us, err := strconv.ParseInt(res["t"], 10, 64)
	if err != nil {
		b.Fatalf("job result %v: no start time", res)
	}
	return time.UnixMicro(us).Sub(start)
}

func jobOfB(b *testing.B, v *wire.FlowView, name string) map[string]string {
	for _, j := range v.Jobs {
		if j.Name == name {
			return j.Result
		}
	}
	b.Fatalf("flow %d has no job %s", v.ID, name)
	return nil
}

func p50(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}
