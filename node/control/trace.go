package control

import (
	"context"

	"github.com/hyphae-run/hyphae/context/store"
	"github.com/hyphae-run/hyphae/internal/tracing"
	"github.com/hyphae-run/hyphae/node/api"
)

// TraceParams are the trace parameters every submitting method takes: a
// caller's W3C traceparent, or a bare 32-hex trace_id. The submission
// keeps that trace id (with a span id of its own); without either it gets
// a new one. The answer's trace_id is the traceparent stored.
type TraceParams struct {
	Traceparent string `json:"traceparent,omitempty"`
	TraceID     string `json:"trace_id,omitempty"`
}

// caller is the trace the caller gave, "" for none.
func (p TraceParams) caller() string {
	if p.Traceparent != "" {
		return p.Traceparent
	}
	return p.TraceID
}

// adopt is the traceparent of a new submission with parameters p; a
// malformed one is an invalid-params error naming the field.
func (p TraceParams) adopt() (string, error) {
	tp, err := tracing.Adopt(p.caller())
	if err != nil {
		field := "trace_id"
		if p.Traceparent != "" {
			field = "traceparent"
		}
		return "", api.InvalidParams(field, "%v", err)
	}
	return tp, nil
}

// jobRunTraced is jobRun for a submission not yet given its traceparent:
// it gives it one and wraps the submission in the submit span.
func (h *Handlers) jobRunTraced(ctx context.Context, p JobRunParams, run bool) (*JobView, *store.EndWatch, error) {
	tp, err := p.adopt()
	if err != nil {
		return nil, nil, err
	}
	p.trace = tp
	span := h.Tracer.BeginSubmit(tp, p.caller(), p.Context, "")
	j, w, err := h.jobRun(ctx, p, run)
	if j != nil {
		span.SetKey(j.Key)
	}
	span.End(err)
	return j, w, err
}
