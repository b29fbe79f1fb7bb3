package model

// ExtraTraceID, on a job, flow or message: the W3C traceparent
// ("00-<32 hex trace id>-<16 hex span id>-01") of the submission that made
// it. It travels with a job to other agents inside the job hash, whose
// Extra fields agents of every version pass through, so the job's copy
// there keeps the same trace id; a flow's jobs share the flow's.
const ExtraTraceID = "trace_id"

// TraceID is j's traceparent; "" for a job made before trace ids (or
// written to Redis by a client that gave none, until the agent sees it).
func (j *RunnerJob) TraceID() string { return j.Extra[ExtraTraceID] }

// SetTraceID records traceparent tp on j.
func (j *RunnerJob) SetTraceID(tp string) { j.Extra = withTrace(j.Extra, tp) }

// TraceID is f's traceparent, shared by its jobs.
func (f *Flow) TraceID() string { return f.Extra[ExtraTraceID] }

// SetTraceID records traceparent tp on f.
func (f *Flow) SetTraceID(tp string) { f.Extra = withTrace(f.Extra, tp) }

// TraceID is m's traceparent.
func (m *Message) TraceID() string { return m.Extra[ExtraTraceID] }

// SetTraceID records traceparent tp on m.
func (m *Message) SetTraceID(tp string) { m.Extra = withTrace(m.Extra, tp) }

// withTrace is h with its trace id set to tp (h made when nil; an empty
// tp is not stored).
func withTrace(h Hash, tp string) Hash {
	if tp == "" {
		return h
	}
	if h == nil {
		h = Hash{}
	}
	h[ExtraTraceID] = tp
	return h
}
