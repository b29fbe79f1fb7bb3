package tracing

import (
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	resourcepb "go.opentelemetry.io/proto/otlp/resource/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
)

// tracesData is spans as OTLP protobuf, grouped by resource and scope.
func tracesData(spans []sdktrace.ReadOnlySpan) *tracepb.TracesData {
	type group struct {
		res   *tracepb.ResourceSpans
		scope map[string]*tracepb.ScopeSpans
	}
	var out tracepb.TracesData
	groups := map[any]*group{}
	for _, s := range spans {
		g := groups[s.Resource()]
		if g == nil {
			g = &group{res: &tracepb.ResourceSpans{Resource: &resourcepb.Resource{Attributes: keyValues(s.Resource().Attributes())}},
				scope: map[string]*tracepb.ScopeSpans{}}
			groups[s.Resource()] = g
			out.ResourceSpans = append(out.ResourceSpans, g.res)
		}
		sc := s.InstrumentationScope()
		ss := g.scope[sc.Name]
		if ss == nil {
			ss = &tracepb.ScopeSpans{Scope: &commonpb.InstrumentationScope{Name: sc.Name, Version: sc.Version}}
			g.scope[sc.Name] = ss
			g.res.ScopeSpans = append(g.res.ScopeSpans, ss)
		}
		ss.Spans = append(ss.Spans, span(s))
	}
	return &out
}

func span(s sdktrace.ReadOnlySpan) *tracepb.Span {
	sc := s.SpanContext()
	tid, sid := sc.TraceID(), sc.SpanID()
	p := &tracepb.Span{TraceId: tid[:], SpanId: sid[:], Name: s.Name(),
		Kind:              tracepb.Span_SpanKind(s.SpanKind()), // the same numbers: internal 1 … consumer 5
		StartTimeUnixNano: uint64(s.StartTime().UnixNano()), EndTimeUnixNano: uint64(s.EndTime().UnixNano()),
		Attributes: keyValues(s.Attributes()), Status: status(s.Status())}
	if parent := s.Parent(); parent.IsValid() {
		pid := parent.SpanID()
		p.ParentSpanId = pid[:]
	}
	for _, ev := range s.Events() {
		p.Events = append(p.Events, &tracepb.Span_Event{TimeUnixNano: uint64(ev.Time.UnixNano()), Name: ev.Name,
			Attributes: keyValues(ev.Attributes)})
	}
	return p
}

func status(st sdktrace.Status) *tracepb.Status {
	switch st.Code {
	case codes.Error:
		return &tracepb.Status{Code: tracepb.Status_STATUS_CODE_ERROR, Message: st.Description}
	case codes.Ok:
		return &tracepb.Status{Code: tracepb.Status_STATUS_CODE_OK}
	}
	return nil
}

func keyValues(attrs []attribute.KeyValue) []*commonpb.KeyValue {
	out := make([]*commonpb.KeyValue, 0, len(attrs))
	for _, kv := range attrs {
		out = append(out, &commonpb.KeyValue{Key: string(kv.Key), Value: anyValue(kv.Value)})
	}
	return out
}

func anyValue(v attribute.Value) *commonpb.AnyValue {
	switch v.Type() {
	case attribute.BOOL:
		return &commonpb.AnyValue{Value: &commonpb.AnyValue_BoolValue{BoolValue: v.AsBool()}}
	case attribute.INT64:
		return &commonpb.AnyValue{Value: &commonpb.AnyValue_IntValue{IntValue: v.AsInt64()}}
	case attribute.FLOAT64:
		return &commonpb.AnyValue{Value: &commonpb.AnyValue_DoubleValue{DoubleValue: v.AsFloat64()}}
	case attribute.STRING:
		return &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: v.AsString()}}
	}
	return &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: v.String()}}
}
