package tracing_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/hyphae-run/hyphae/internal/poll"
	"github.com/hyphae-run/hyphae/internal/tracing"
	"github.com/hyphae-run/hyphae/testkit/otlptest"
)

// Off (no endpoint), there is no tracer, and its spans cost no
// allocation at all.
func TestOffAllocatesNothing(t *testing.T) {
	tr, err := tracing.Start(context.Background(), tracing.Config{})
	if err != nil || tr != nil {
		t.Fatalf("Start without an endpoint = %v, %v; want nil, nil (off)", tr, err)
	}
	tp, failed := tracing.New(), errors.New("x")
	allocs := testing.AllocsPerRun(100, func() {
		s := tr.BeginSubmit(tp, "", 1, "job:1:1")
		s.SetKey("job:1:2")
		s.End(nil)
		tr.Begin(tracing.SpanRun, tp, 1, "job:1:1").End(failed)
	})
	if allocs != 0 {
		t.Fatalf("spans with export off: %v allocations per run, want 0", allocs)
	}
	if err := tr.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// On, the submit span takes the ids of the traceparent stored on the job
// and is the child of the caller's span; later spans begun from the
// stored traceparent are its children, in the same trace.
func TestSpansLinkThroughTheStoredTraceparent(t *testing.T) {
	rx := otlptest.Start(t)
	tr, err := tracing.Start(context.Background(), tracing.Config{Endpoint: rx.URL, Peer: "peer-a"})
	if err != nil || tr == nil {
		t.Fatalf("Start: %v, %v", tr, err)
	}
	const caller = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
	tp, _ := tracing.Adopt(caller)
	trace, submitID, _ := tracing.Parse(tp)
	tr.BeginSubmit(tp, caller, 1, "job:1:1").End(nil)
	tr.Begin(tracing.SpanRun, tp, 1, "job:1:1").End(errors.New("exit status 1"))
	if err := tr.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	poll.Eventually(t, 10*time.Second, "two spans", func() bool { return len(rx.Spans()) == 2 })
	for _, s := range rx.Spans() {
		if s.TraceID != trace || s.Peer != "peer-a" {
			t.Errorf("span %+v: want trace %s from peer-a", s, trace)
		}
		switch s.Name {
		case tracing.SpanSubmit:
			if s.SpanID != submitID || s.ParentID != "b7ad6b7169203331" {
				t.Errorf("submit span %+v: want id %s, parent the caller's span", s, submitID)
			}
		case tracing.SpanRun:
			if s.ParentID != submitID {
				t.Errorf("run span %+v: want parent %s (submit)", s, submitID)
			}
		}
	}
}
