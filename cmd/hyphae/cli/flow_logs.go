package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/node/api/wire"
)

// flowLogs streams the log lines of a flow's jobs while it is followed,
// each after its job's name: "  build | line", "  build | E| line" for
// stderr.
type flowLogs struct {
	g    *globals
	w    io.Writer
	from map[string]int64 // next line to ask for, by job key
	logs metaLogs         // reads them (logs_meta.go)
	done map[string]bool  // jobs whose every line was printed
}

func newFlowLogs(g *globals, w io.Writer) *flowLogs {
	return &flowLogs{g: g, w: w, from: map[string]int64{}, done: map[string]bool{}, logs: metaLogs{g: g}}
}

// tick prints the new lines of every job of v that has started.
func (l *flowLogs) tick(ctx context.Context, v *wire.FlowView) {
	for _, j := range v.Jobs {
		if j.Key == "" || l.done[j.Key] {
			continue
		}
		switch j.State {
		case model.NodeRunning, model.NodeDispatched, model.NodeCompleted, model.NodeFailed:
		default:
			continue
		}
		if l.lines(ctx, v.ContextID, j.Name, j.Key) && j.State.Terminal() {
			l.done[j.Key] = true
		}
	}
}

// lines prints a job's new lines; false when they could not be read.
func (l *flowLogs) lines(ctx context.Context, ctxID uint64, name, key string) bool {
	for range 20 { // bounded, as in waitProgress.logLines
		var lv wire.LogsView
		if err := l.logs.page(ctx, ctxID, key, l.from[key], &lv); err != nil {
			return false
		}
		for _, e := range entriesOf(&lv) {
			fmt.Fprintf(l.w, "  %s | %s\n", name, markedLine(e))
		}
		l.from[key] = lv.Next
		if !lv.More {
			return true
		}
	}
	return true
}
