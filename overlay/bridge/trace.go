package bridge

import (
	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/internal/tracing"
)

// receivedTrace is the traceparent a job or message received from
// another agent keeps: the sender's when it is one (an agent of any
// version passes the job hash's trace_id through), else a new one (an
// agent from before trace ids, or a malformed value, which is not kept).
func receivedTrace(tp string) string {
	if tracing.TraceID(tp) == "" {
		return tracing.New()
	}
	return tp
}

// traceOnSend gives job j of a message a client put on msg_out its
// traceparent when it has none, recording it with the job and the
// message (o's fields): the agent first sees such a job here.
func traceOnSend(j *model.RunnerJob, jobFields, msgFields model.Hash) {
	if j.TraceID() == "" {
		j.SetTraceID(tracing.New())
		jobFields[model.ExtraTraceID] = j.TraceID()
	}
	msgFields[model.ExtraTraceID] = j.TraceID()
}
