package cli

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/node/api/wire"
)

// How often a wait asks whether the job's runner still answers, and how
// often it repeats that one does not.
const (
	peerCheckEvery = 2 * time.Second
	awayNoteEvery  = 10 * time.Second
)

// waitProgress tells a person waiting on a job what happens: status
// changes with the time since the wait began, the job's log lines as they
// come, and, within seconds, that the agent running it stopped answering.
type waitProgress struct {
	g     *globals
	w     io.Writer
	ctxID uint64
	key   string
	start time.Time

	status    string    // the last status shown
	from      int64     // the next log line to ask for
	logs      metaLogs  // reads them (logs_meta.go)
	source    string    // where the log lines came from (LogsView.Source)
	checked   time.Time // when the runner's peer state was last asked
	awaySince time.Time // since when the runner does not answer; zero while it does
	noted     time.Time // when that was last said
}

func newWaitProgress(g *globals, w io.Writer, ctxID uint64, key string) *waitProgress {
	return &waitProgress{g: g, w: w, ctxID: ctxID, key: key, start: time.Now(), logs: metaLogs{g: g}}
}

// elapsed is the time since the wait began, in whole seconds.
func (p *waitProgress) elapsed() time.Duration { return time.Since(p.start).Round(time.Second) }

// update reports what changed since the last call about job j.
func (p *waitProgress) update(ctx context.Context, j *wire.JobView) {
	if j.Status != p.status {
		fmt.Fprintf(p.w, "%s  %s %s (%v)\n", time.Now().Format("15:04:05"), p.key, j.Status, p.elapsed())
		p.status = j.Status
	}
	p.logLines(ctx)
	p.reach(ctx, j)
}

// logLines prints the job's new log lines, each after "| ", stderr
// lines marked as `job logs` marks them.
func (p *waitProgress) logLines(ctx context.Context) {
	for range 20 { // bounded: a job writing faster than we read must not stall the wait
		var lv wire.LogsView
		if err := p.logs.page(ctx, p.ctxID, p.key, p.from, &lv); err != nil {
			return
		}
		if p.source == "runner" && lv.Source == "result" && p.from > 0 {
			return // the runner's agent stopped answering: its indexes are not the local copy's
		}
		p.source = lv.Source
		for _, e := range entriesOf(&lv) {
			fmt.Fprintf(p.w, "  | %s\n", markedLine(e))
		}
		p.from = lv.Next
		if !lv.More {
			return
		}
	}
}

// reach says when the agent running the job stops answering, again every
// awayNoteEvery while it does not, and when it is back.
func (p *waitProgress) reach(ctx context.Context, j *wire.JobView) {
	since, away := p.awayFrom(ctx, j)
	switch {
	case away && p.awaySince.IsZero():
		p.awaySince, p.noted = since, time.Now()
	case away && time.Since(p.noted) >= awayNoteEvery:
		p.noted = time.Now()
	case !away && !p.awaySince.IsZero():
		fmt.Fprintf(p.w, "%s  runner %s answers again (%v)\n", time.Now().Format("15:04:05"), shortRunner(j.Runner), p.elapsed())
		p.awaySince = time.Time{}
		return
	default:
		return
	}
	fmt.Fprintf(p.w, "%s  runner %s unreachable for %v, waiting (its result is taken when it returns)\n",
		time.Now().Format("15:04:05"), shortRunner(j.Runner), time.Since(p.awaySince).Round(time.Second))
}

// awayFrom says whether the job's runner does not answer, and since when:
// the job's own record says so once the agent gives it up as unknown;
// before that, the peer table does within seconds.
func (p *waitProgress) awayFrom(ctx context.Context, j *wire.JobView) (time.Time, bool) {
	if j.State == model.StateUnknown {
		return time.Unix(j.UnreachableSince, 0), true
	}
	if j.Runner == "" || j.Status == "finished" || j.Status == "error" {
		return time.Time{}, false
	}
	if time.Since(p.checked) < peerCheckEvery {
		return p.awaySince, !p.awaySince.IsZero()
	}
	p.checked = time.Now()
	var ps []wire.PeerView
	if err := p.g.call(ctx, "peer.list", nil, &ps); err != nil {
		return time.Time{}, false
	}
	for _, peer := range ps {
		if peer.PeerID == j.Runner && peer.State != "up" {
			return time.Unix(peer.LastSeen, 0), true
		}
	}
	return time.Time{}, false
}
