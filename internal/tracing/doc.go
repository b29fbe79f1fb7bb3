// Package tracing gives every submission a trace id and, when an OTLP
// endpoint is configured, exports spans about it.
//
// A trace id is kept as a W3C traceparent ("00-<32 hex>-<16 hex>-01") in
// the trace_id field of a job, flow or message (model.ExtraTraceID). Its
// span id is the submit span's, so the spans an agent makes later (send,
// receive, run, result), on this agent or on the one a job went to, are
// children of that span in one trace.
//
// Export is off by default. Off, a *Tracer is nil: Start returns a Span
// whose End does nothing, and no exporter, provider or span is made.
package tracing
