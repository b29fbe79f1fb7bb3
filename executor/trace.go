package executor

import (
	"errors"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/internal/tracing"
)

// giveTrace gives job j, claimed without a traceparent (a client wrote it
// to Redis without one), a new one and reports whether it did: the end of
// the attempt records it on the job (traced).
func giveTrace(j *model.RunnerJob) bool {
	if j.TraceID() != "" {
		return false
	}
	j.SetTraceID(tracing.New())
	return true
}

// traced is fields, the end of attempt a, with the traceparent the runner
// gave the job when it had none.
func (a *attempt) traced(fields model.Hash) model.Hash {
	if a.newTrace {
		fields[model.ExtraTraceID] = a.job.TraceID()
	}
	return fields
}

// runErr is the error a run span ends with: nil for a success.
func runErr(out outcome) error {
	if out.reason == "" {
		return nil
	}
	return errors.New(out.reason)
}
