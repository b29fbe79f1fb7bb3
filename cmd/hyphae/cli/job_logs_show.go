package cli

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/hyphae-run/hyphae/node/api/wire"
)

// stderrMark starts a line the job wrote on stderr in `job logs`.
const stderrMark = "E| "

// logShow is how `job logs` prints a line: its time first (stamps), a
// mark on stderr lines, or a JSON object per line.
type logShow struct {
	stamps bool
	json   bool
}

// line prints one log line.
func (s logShow) line(w io.Writer, e wire.LogEntry) {
	if s.json {
		b, _ := json.Marshal(e) // strings only: always encodes
		fmt.Fprintf(w, "%s\n", b)
		return
	}
	if s.stamps {
		ts := e.TS
		if ts == "" {
			ts = "-" // not known: a line a result brought home, or an older agent's
		}
		fmt.Fprint(w, ts, " ")
	}
	if e.Stream == "stderr" {
		fmt.Fprint(w, stderrMark)
	}
	fmt.Fprintln(w, e.Line)
}

// entriesOf are lv's lines with their time and stream when the agent sent
// them (job.logs with meta), else as plain lines.
func entriesOf(lv *wire.LogsView) []wire.LogEntry {
	if len(lv.Entries) == len(lv.Lines) {
		return lv.Entries
	}
	out := make([]wire.LogEntry, len(lv.Lines))
	for i, l := range lv.Lines {
		out[i] = wire.LogEntry{Line: l}
	}
	return out
}
