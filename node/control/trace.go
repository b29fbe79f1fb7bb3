package control

import (
	"github.com/hyphae-run/hyphae/internal/tracing"
	"github.com/hyphae-run/hyphae/node/api"
	"github.com/hyphae-run/hyphae/node/api/wire"
)

// adoptTrace is the traceparent of a new submission with parameters p; a
// malformed one is an invalid-params error naming the field.
func adoptTrace(p wire.TraceParams) (string, error) {
	tp, err := tracing.Adopt(p.Caller())
	if err != nil {
		field := "trace_id"
		if p.Traceparent != "" {
			field = "traceparent"
		}
		return "", api.InvalidParams(field, "%v", err)
	}
	return tp, nil
}
