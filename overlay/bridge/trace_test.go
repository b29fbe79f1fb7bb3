package bridge

import (
	"strings"
	"testing"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/internal/tracing"
)

// A client's trace on a job it put on msg_out is kept, a bare 32-hex id
// made a traceparent with it; a message's trace serves a job with none
// (issue 39, point 6).
func TestTraceOnSendKeepsTheClientsTrace(t *testing.T) {
	const hexID = "4bf92f3577b34da6a3ce929d0e0e4736"
	tp := "00-" + hexID + "-00f067aa0ba902b7-01"
	for _, c := range []struct{ name, job, msg, want string }{
		{"traceparent on the job", tp, "", hexID},
		{"hex on the job", hexID, "", hexID},
		{"hex on the message", "", strings.ToUpper(hexID), hexID},
		{"none", "", "", ""},
		{"malformed", "xyz", "", ""},
	} {
		j, m := &model.RunnerJob{}, &model.Message{}
		j.SetTraceID(c.job)
		m.SetTraceID(c.msg)
		jf, mf := model.Hash{}, model.Hash{}
		traceOnSend(j, m, jf, mf)
		got := tracing.TraceID(j.TraceID())
		if got == "" || (c.want != "" && got != c.want) || mf[model.ExtraTraceID] != j.TraceID() {
			t.Errorf("%s: job trace %q (message field %q), want trace id %q", c.name, j.TraceID(), mf[model.ExtraTraceID], c.want)
		}
		if c.job == tp && j.TraceID() != tp {
			t.Errorf("%s: traceparent %q became %q", c.name, tp, j.TraceID())
		}
	}
}
