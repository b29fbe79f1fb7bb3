package cli

import (
	"os"

	"github.com/hyphae-run/hyphae/internal/tracing"
)

// callerTrace is the traceparent of the process running the CLI, from
// TRACEPARENT (OpenTelemetry's convention for passing trace context
// through the environment) when it holds a valid one: a job or flow
// submitted then joins that trace. Anything else is ignored, so a stray
// value never makes a submission fail.
func callerTrace() string {
	v := os.Getenv("TRACEPARENT")
	if _, _, ok := tracing.Parse(v); !ok {
		return ""
	}
	return v
}
