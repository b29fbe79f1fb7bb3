package tracing

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// Names of the spans of a job's way through the agents.
const (
	SpanSubmit  = "submit"  // a job or flow is accepted by the API
	SpanSend    = "send"    // a job leaves for another agent
	SpanReceive = "receive" // a job from another agent is accepted
	SpanRun     = "run"     // a runner runs an attempt
	SpanResult  = "result"  // a job's result is recorded at its origin
)

// Span is a started span; the zero Span (export off) does nothing.
type Span struct{ s trace.Span }

// End ends s, marked failed with err when err is not nil.
func (s Span) End(err error) {
	if s.s == nil {
		return
	}
	if err != nil {
		s.s.RecordError(err)
		s.s.SetStatus(codes.Error, err.Error())
	}
	s.s.End()
}

// Begin starts span name, a child of the span traceparent tp names (on
// this agent or on another one), about job key of context ctxID. A tp
// that is not a traceparent starts nothing.
func (t *Tracer) Begin(name, tp string, ctxID uint64, key string) Span {
	if t == nil {
		return Span{}
	}
	sc, ok := spanContext(tp)
	if !ok {
		return Span{}
	}
	ctx := trace.ContextWithRemoteSpanContext(context.Background(), sc)
	return t.start(ctx, name, ctxID, key)
}

// BeginSubmit starts the submit span of a submission whose traceparent is
// tp (Adopt or New made it): the span takes tp's ids, so that the later
// spans (Begin with tp) are its children. caller, the traceparent the
// caller gave (or ""), is its parent.
func (t *Tracer) BeginSubmit(tp, caller string, ctxID uint64, key string) Span {
	if t == nil {
		return Span{}
	}
	own, ok := spanContext(tp)
	if !ok {
		return Span{}
	}
	ctx := context.WithValue(context.Background(), forcedKey{}, own)
	if parent, ok := spanContext(caller); ok {
		ctx = trace.ContextWithRemoteSpanContext(ctx, parent)
	}
	return t.start(ctx, SpanSubmit, ctxID, key)
}

func (t *Tracer) start(ctx context.Context, name string, ctxID uint64, key string) Span {
	_, s := t.tr.Start(ctx, name, trace.WithSpanKind(kinds[name]), trace.WithAttributes(
		attribute.Int64("hyphae.context", int64(ctxID)), attribute.String("hyphae.key", key)))
	return Span{s}
}

var kinds = map[string]trace.SpanKind{SpanSubmit: trace.SpanKindServer, SpanSend: trace.SpanKindProducer,
	SpanReceive: trace.SpanKindConsumer, SpanRun: trace.SpanKindInternal, SpanResult: trace.SpanKindConsumer}

// spanContext is the remote, sampled span context traceparent tp names.
func spanContext(tp string) (trace.SpanContext, bool) {
	tid, sid, ok := Parse(tp)
	if !ok {
		return trace.SpanContext{}, false
	}
	traceID, err1 := trace.TraceIDFromHex(tid)
	spanID, err2 := trace.SpanIDFromHex(sid)
	if err1 != nil || err2 != nil {
		return trace.SpanContext{}, false
	}
	return trace.NewSpanContext(trace.SpanContextConfig{TraceID: traceID, SpanID: spanID,
		TraceFlags: trace.FlagsSampled, Remote: true}), true
}

// SetKey names the job or flow s is about, once it has a key.
func (s Span) SetKey(key string) {
	if s.s != nil {
		s.s.SetAttributes(attribute.String("hyphae.key", key))
	}
}
