package control

import (
	"context"
	"time"

	"github.com/hyphae-run/hyphae/context/store"
	"github.com/hyphae-run/hyphae/node/api/wire"
)

// splitLogLines splits lines read with their meta into the plain lines
// and their meta entries ("" when unknown).
func splitLogLines(ll []store.LogLine) (lines, metas []string) {
	lines, metas = make([]string, len(ll)), make([]string, len(ll))
	for i, l := range ll {
		lines[i] = l.Text
		if l.TimeMS != 0 || l.Stream != "" {
			metas[i] = l.Meta()
		}
	}
	return lines, metas
}

// logEntries pairs lines with their meta entries (metas may be shorter).
func logEntries(lines, metas []string) []wire.LogEntry {
	out := make([]wire.LogEntry, len(lines))
	for i, l := range store.JoinLogMeta(lines, metas) {
		out[i] = wire.LogEntry{Line: l.Text, Stream: l.Stream}
		if l.TimeMS > 0 {
			out[i].TS = time.UnixMilli(l.TimeMS).UTC().Format("2006-01-02T15:04:05.000Z07:00")
		}
	}
	return out
}

// entriesAt are lines, read from index at of job key's log, with their
// time and stream (the meta is written with its line, in one step, so it
// is there); without them when the store does not answer.
func (h *Handlers) entriesAt(ctx context.Context, ctxID uint64, key string, at int64, lines []string) []wire.LogEntry {
	metas, _ := h.Store.Logs.ReadLogMeta(ctx, ctxID, key, at, at+int64(len(lines))-1)
	return logEntries(lines, metas)
}
