package cli

import (
	"context"
	"strings"

	"github.com/hyphae-run/hyphae/node/api/wire"
)

// metaLogs reads pages of a job's log for the progress of a wait, with
// each line's stream (job.logs meta) so that stderr lines can be marked.
// An agent older than meta refuses the parameter as unknown; from then on
// it is asked without it and its lines are shown plain.
type metaLogs struct {
	g     *globals
	plain bool // the agent refused meta once
}

// page reads key's lines from index from into lv.
func (m *metaLogs) page(ctx context.Context, ctxID uint64, key string, from int64, lv *wire.LogsView) error {
	p := map[string]any{"context": ctxID, "key": key, "from": from}
	if !m.plain {
		p["meta"] = true
	}
	err := m.g.call(ctx, "job.logs", p, lv)
	if err != nil && !m.plain && strings.Contains(err.Error(), "meta: unknown field") {
		m.plain = true
		delete(p, "meta")
		err = m.g.call(ctx, "job.logs", p, lv)
	}
	return err
}

// markedLine is a log line as progress shows it: after stderrMark when
// the job wrote it on stderr (plain when the agent sent no streams).
func markedLine(e wire.LogEntry) string {
	if e.Stream == "stderr" {
		return stderrMark + e.Line
	}
	return e.Line
}
