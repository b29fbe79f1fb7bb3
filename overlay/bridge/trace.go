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

// traceOnSend gives job j of message m a client put on msg_out its
// traceparent, recording it with the job and the message (o's fields):
// the agent first sees such a job here. A client's trace (the job's
// trace_id, else the message's), a traceparent or a bare 32-hex trace id,
// is kept (issue 39); a job with none, or a malformed one, gets a new one.
func traceOnSend(j *model.RunnerJob, m *model.Message, jobFields, msgFields model.Hash) {
	from := j.TraceID()
	if from == "" {
		from = m.TraceID()
	}
	if tracing.TraceID(from) == "" {
		tp, err := tracing.Adopt(from)
		if err != nil {
			tp = tracing.New()
		}
		j.SetTraceID(tp)
		jobFields[model.ExtraTraceID] = tp
	}
	msgFields[model.ExtraTraceID] = j.TraceID()
}
