package node_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"log/slog"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/hyphae-run/hyphae/internal/tracing"
	"github.com/hyphae-run/hyphae/node/api"
	"github.com/hyphae-run/hyphae/node/api/wire"
	"github.com/hyphae-run/hyphae/testkit/otlptest"
	"github.com/hyphae-run/hyphae/testkit/overlaybench"
)

// capturedLog is an agent's log, kept as JSON lines so a test can find
// the lines that carry a trace id.
type capturedLog struct {
	mu sync.Mutex
	b  bytes.Buffer // guarded by mu
}

func (l *capturedLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func newCapturedLog() (*slog.Logger, *capturedLog) {
	l := &capturedLog{}
	return slog.New(slog.NewJSONHandler(l, &slog.HandlerOptions{Level: slog.LevelDebug})), l
}

// messagesWith lists the messages of the lines whose trace_id is tp.
func (l *capturedLog) messagesWith(tp string) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(l.b.Bytes()))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var rec struct {
			Msg     string `json:"msg"`
			TraceID string `json:"trace_id"`
		}
		if json.Unmarshal(sc.Bytes(), &rec) == nil && rec.TraceID == tp {
			out = append(out, rec.Msg)
		}
	}
	return out
}

// noTraceExport makes sure no OTLP endpoint comes from the environment.
func noTraceExport(t *testing.T) {
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "")
	t.Setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "")
}

// withContext1 creates context 1 on a.
func withContext1(t *testing.T, a *agent) *agent {
	a.call(t, "context.create", map[string]any{"id": 1}, nil)
	return a
}

// job.run gives a job a W3C traceparent, shows it in its answer and in
// job.load, and stores it on the job's hash (trace_id) for Redis clients.
func TestJobRunGivesATraceID(t *testing.T) {
	noTraceExport(t)
	a := withContext1(t, startAgent(t, agentOpts{}))
	var j wire.JobView
	a.call(t, "job.run", map[string]any{"context": 1, "type": "sh", "script": "true", "wait": 30}, &j)
	if _, _, ok := tracing.Parse(j.TraceID); !ok || j.Status != "finished" {
		t.Fatalf("job.run answered trace_id %q, status %s: want a W3C traceparent", j.TraceID, j.Status)
	}
	var loaded wire.JobView
	a.call(t, "job.load", map[string]any{"context": 1, "key": j.Key}, &loaded)
	stored, err := dbOf(t, a.redis, 1).HGet(t.Context(), j.Key, "trace_id").Result()
	if loaded.TraceID != j.TraceID || err != nil || stored != j.TraceID {
		t.Fatalf("job.load trace_id %q, hash %q (%v); want %q", loaded.TraceID, stored, err, j.TraceID)
	}
}

// A job a client writes straight to Redis (HSET, LPUSH queue:sh) without
// a trace id gets one when the runner takes it, recorded on its hash; one
// written with a trace id keeps it.
func TestRawRedisJobGetsATraceID(t *testing.T) {
	noTraceExport(t)
	a := withContext1(t, startAgent(t, agentOpts{}))
	rdb := dbOf(t, a.redis, 1)
	const given = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	for key, tp := range map[string]string{"job:1:900": "", "job:1:901": given} {
		fields := []any{"script", "true", "script_type", "sh", "status", "dispatched"}
		if tp != "" {
			fields = append(fields, "trace_id", tp)
		}
		if err := rdb.HSet(t.Context(), key, fields...).Err(); err != nil {
			t.Fatal(err)
		}
		if err := rdb.LPush(t.Context(), "queue:sh", key).Err(); err != nil {
			t.Fatal(err)
		}
		j := waitJob(t, a, 1, key)
		stored, _ := rdb.HGet(t.Context(), key, "trace_id").Result()
		if _, _, ok := tracing.Parse(j.TraceID); !ok || stored != j.TraceID || (tp != "" && j.TraceID != tp) {
			t.Errorf("raw job %s (trace_id %q): ended %s with trace_id %q, hash %q", key, tp, j.Status, j.TraceID, stored)
		}
	}
}

// A caller's traceparent (or bare trace_id) is kept: the job joins the
// caller's trace. A malformed one is refused, naming the parameter.
func TestJobRunKeepsTheCallersTraceparent(t *testing.T) {
	noTraceExport(t)
	a := withContext1(t, startAgent(t, agentOpts{}))
	const trace = "4bf92f3577b34da6a3ce929d0e0e4736"
	for field, v := range map[string]string{"traceparent": "00-" + trace + "-00f067aa0ba902b7-01", "trace_id": trace} {
		var j wire.JobView
		a.call(t, "job.create", map[string]any{"context": 1, "type": "sh", "script": "true", field: v}, &j)
		if tracing.TraceID(j.TraceID) != trace {
			t.Errorf("job.create with %s %s: trace_id %q, want trace id %s kept", field, v, j.TraceID, trace)
		}
	}
	err := a.client.Call(t.Context(), "job.run", map[string]any{"context": 1, "type": "sh", "script": "true",
		"traceparent": "00-zz-00f067aa0ba902b7-01"}, nil)
	if e, ok := err.(*api.Error); !ok || e.Code != api.CodeInvalidParams {
		t.Fatalf("a malformed traceparent: %v, want invalid params", err)
	}
}

// A flow and its jobs share one trace id; a caller's trace id is kept.
func TestFlowJobsShareTheFlowsTraceID(t *testing.T) {
	noTraceExport(t)
	a := withContext1(t, startAgent(t, agentOpts{}))
	const trace = "0af7651916cd43dd8448eb211c80319c"
	file := "name: traced\ncontext: 1\njobs:\n  a: {type: sh, script: 'true'}\n  b: {type: sh, script: 'true', needs: a}\n"
	var fv wire.FlowView
	a.call(t, "flow.create", map[string]any{"file_content": file, "start": true, "trace_id": trace}, &fv)
	if tracing.TraceID(fv.TraceID) != trace || len(fv.Jobs) != 2 {
		t.Fatalf("flow.create: trace_id %q, %d jobs; want trace id %s and 2 jobs", fv.TraceID, len(fv.Jobs), trace)
	}
	for _, js := range fv.Jobs {
		got := waitJob(t, a, 1, js.Key)
		if got.TraceID != fv.TraceID || got.Status != "finished" {
			t.Errorf("flow job %s: trace_id %q, status %s; want the flow's %q", js.Key, got.TraceID, got.Status, fv.TraceID)
		}
	}
}

// A job sent from agent a to agent b has the same trace id on both, and
// both agents' log lines about it carry it.
func TestRemoteJobKeepsItsTraceIDOnBothAgents(t *testing.T) {
	noTraceExport(t)
	logB, linesB := newCapturedLog()
	b := startAgent(t, agentOpts{log: logB})
	logA, linesA := newCapturedLog()
	a := startAgent(t, agentOpts{bootstrap: []string{b.addr(t)}, log: logA})
	grantExecutor(t, b, 2, a.peerID())
	var j wire.JobView
	a.call(t, "job.run", map[string]any{"to": b.peerID(), "context": 2, "type": "sh", "script": "echo hi", "wait": 60}, &j)
	if j.Status != "finished" || tracing.TraceID(j.TraceID) == "" {
		t.Fatalf("job %+v: want finished with a trace id", j)
	}
	var there []wire.JobView
	b.call(t, "job.list", map[string]any{"context": 2}, &there)
	if len(there) != 1 || there[0].TraceID != j.TraceID {
		t.Fatalf("b's copy of the job: %+v; want trace_id %q", there, j.TraceID)
	}
	for _, c := range []struct {
		who   string
		lines *capturedLog
		want  []string
	}{
		{"a (origin)", linesA, []string{"bridge: sending job", "bridge: result"}},
		{"b (runner)", linesB, []string{"bridge: accepted job", "executor: running job"}},
	} {
		got := c.lines.messagesWith(j.TraceID)
		for _, w := range c.want {
			if !slices.Contains(got, w) {
				t.Errorf("%s: no %q line with trace_id %s; its lines with it: %q", c.who, w, j.TraceID, got)
			}
		}
	}
}

// With an OTLP endpoint, the spans of a job sent from a to b — submit,
// send and result at a, receive and run at b — arrive in one trace, each
// a child of the submit span.
func TestSpansOfARemoteJobArriveInOneTrace(t *testing.T) {
	rx := otlptest.Start(t)
	t.Setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "")
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", rx.URL)
	b := startAgent(t, agentOpts{})
	a := startAgent(t, agentOpts{bootstrap: []string{b.addr(t)}})
	grantExecutor(t, b, 2, a.peerID())
	var j wire.JobView
	a.call(t, "job.run", map[string]any{"to": b.peerID(), "context": 2, "type": "sh", "script": "true", "wait": 60}, &j)
	trace, submit, ok := tracing.Parse(j.TraceID)
	if !ok || j.Status != "finished" {
		t.Fatalf("job %+v", j)
	}
	want := map[string]string{tracing.SpanSubmit: a.peerID(), tracing.SpanSend: a.peerID(),
		tracing.SpanReceive: b.peerID(), tracing.SpanRun: b.peerID(), tracing.SpanResult: a.peerID()}
	got := map[string]otlptest.Span{}
	eventually(t, 30*time.Second, "the job's five spans", func() bool {
		for _, s := range rx.Spans() {
			if s.TraceID == trace {
				got[s.Name] = s
			}
		}
		return len(got) == len(want)
	})
	for name, peer := range want {
		s := got[name]
		parent := submit
		if name == tracing.SpanSubmit {
			parent = "" // the root: no caller's span
		}
		if s.Peer != peer || (name == tracing.SpanSubmit && s.SpanID != submit) || s.ParentID != parent {
			t.Errorf("span %s = %+v; want from %s, parent %q", name, s, peer, parent)
		}
	}
}

// Without an endpoint nothing is exported: a receiver that is up but not
// configured gets no request, even after the agent stops (which would
// flush spans).
func TestNoEndpointExportsNothing(t *testing.T) {
	rx := otlptest.Start(t)
	noTraceExport(t)
	a := withContext1(t, startAgent(t, agentOpts{}))
	var j wire.JobView
	a.call(t, "job.run", map[string]any{"context": 1, "type": "sh", "script": "true", "wait": 30}, &j)
	a.stop(t)
	if n := rx.Requests(); n != 0 || j.TraceID == "" {
		t.Fatalf("%d export requests, trace_id %q; want none and a trace id all the same", n, j.TraceID)
	}
}

// BenchmarkJobRunTracing: job.run of a noop job with wait on an agent
// exporting spans over OTLP (ours) beside the same on an agent with export
// off (raw), one for one in the same loop: ratio-p50 is the cost of
// tracing on.
func BenchmarkJobRunTracing(b *testing.B) {
	b.Setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "")
	b.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "")
	off := startAgent(b, agentOpts{unixRedis: true})
	rx := otlptest.Start(b)
	b.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", rx.URL)
	on := startAgent(b, agentOpts{unixRedis: true})
	run := func(a *agent) func() time.Duration {
		a.call(b, "context.create", map[string]any{"id": 1}, nil)
		return func() time.Duration {
			start := time.Now()
			var j wire.JobView
			a.call(b, "job.run", map[string]any{"context": 1, "type": "noop", "script": "-", "wait": 60}, &j)
			if j.Status != "finished" {
				b.Fatalf("job %+v", j)
			}
			return time.Since(start)
		}
	}
	overlaybench.Interleaved(b, 20, run(on), run(off))
	b.StopTimer()
	on.stop(b) // flush: the spans went out
	if len(rx.Spans()) == 0 {
		b.Fatal("tracing on exported no span")
	}
}

// A chat message keeps its trace id on its way to another agent: the
// sender's copy and the recipient's show the same one.
func TestChatMessageKeepsItsTraceID(t *testing.T) {
	noTraceExport(t)
	b := startAgent(t, agentOpts{})
	a := startAgent(t, agentOpts{bootstrap: []string{b.addr(t)}})
	grantExecutor(t, b, 2, a.peerID())
	const trace = "4bf92f3577b34da6a3ce929d0e0e4736"
	var sent wire.MessageView
	a.call(t, "message.create", map[string]any{"context": 2, "dst": b.peerID(), "message_type": "chat",
		"message": "hello", "trace_id": trace}, &sent)
	if tracing.TraceID(sent.TraceID) != trace {
		t.Fatalf("message.create: trace_id %q, want trace id %s", sent.TraceID, trace)
	}
	eventually(t, 30*time.Second, "b to receive the chat with its trace id", func() bool {
		var got []wire.MessageView
		b.call(t, "message.list", map[string]any{"context": 2}, &got)
		return slices.ContainsFunc(got, func(m wire.MessageView) bool {
			return m.Type == "chat" && m.TraceID == sent.TraceID
		})
	})
}
