package control

import (
	"context"
	"errors"
	"fmt"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/store"
	"github.com/hyphae-run/hyphae/node/api"
	"github.com/hyphae-run/hyphae/node/api/wire"
	"github.com/hyphae-run/hyphae/overlay/bridge"
)

func (h *Handlers) registerJobLogsMethods() {
	h.registerJobTimelineMethods() // its sibling: what happened to the job, beside what it wrote
	api.Register(h.table, "job.logs", "A job's output lines from index `from` on and its status. "+
		"A job sent to another agent is read there (source runner) while that agent answers, "+
		"else from the last lines its result brought home (source result, with a note why). "+
		"With meta, entries give each line with its time (ts) and stream (stdout, stderr, agent; empty when not known).",
		func(ctx context.Context, p struct {
			wire.JobRef
			From int64 `json:"from,omitempty"`
			Meta bool  `json:"meta,omitempty"`
		}) (*wire.LogsView, error) {
			r, err := h.jobLogs(ctx, p.JobRef, p.From)
			if err != nil {
				return nil, err
			}
			if p.Meta {
				r.Entries = logEntries(r.Lines, r.metas)
			}
			return r.LogsView, nil
		})
}

// logsRead is job.logs's answer with each line's store.LogLine meta, for
// its entries.
type logsRead struct {
	*wire.LogsView
	metas []string
}

// jobLogs answers job.logs: lines from index from on.
func (h *Handlers) jobLogs(ctx context.Context, p wire.JobRef, from int64) (*logsRead, error) {
	if _, _, err := store.ParseJobKey(p.Key); err != nil {
		return nil, api.InvalidParams("key", "%v", err)
	}
	if from < 0 {
		return nil, api.InvalidParams("from", "must not be negative")
	}
	j, err := h.Store.Jobs.LoadJobKey(ctx, p.Context, p.Key)
	if err != nil {
		return nil, h.notFound(ctx, err, p.Context, p.Key)
	}
	if j.MessageKey() != "" { // sent to another agent
		return h.sentJobLogs(ctx, p, j, from)
	}
	return h.localLogs(ctx, p, j, from)
}

// localLogs reads job j's lines from this agent's store.
func (h *Handlers) localLogs(ctx context.Context, p wire.JobRef, j *model.RunnerJob, from int64) (*logsRead, error) {
	ll, err := h.Store.Logs.ReadLogLines(ctx, p.Context, p.Key, from)
	if err != nil {
		return nil, err
	}
	lines, metas := splitLogLines(ll)
	return &logsRead{&wire.LogsView{Lines: lines, Next: from + int64(len(lines)), Status: string(j.Status), Runner: j.Runner},
		metas}, nil
}

// sentJobLogs reads the lines of job j, sent to another agent, from that
// agent (Bridge.RemoteLogs); when it cannot be read, from the copy the
// job's result brought home, with a note saying why.
func (h *Handlers) sentJobLogs(ctx context.Context, p wire.JobRef, j *model.RunnerJob, from int64) (*logsRead, error) {
	r, err := h.Bridge.RemoteLogs(ctx, p.Context, p.Key, j.MessageKey(), from)
	if err == nil {
		if r.Lines == nil {
			r.Lines = []string{}
		}
		return &logsRead{&wire.LogsView{Lines: r.Lines, Next: r.Next, Status: r.Status, Runner: r.Runner, Source: "runner",
			More: r.More}, r.Meta}, nil
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	v, lerr := h.localLogs(ctx, p, j, from)
	if lerr != nil {
		return nil, lerr
	}
	v.Source, v.Note, v.ResultLines = "result", logsNote(err, j.Status), bridge.ResultLogLines
	return v, nil
}

// logsNote says why a sent job (in status) was not read at its runner.
func logsNote(err error, status model.JobStatus) string {
	var refused *bridge.RefusedError
	switch {
	case status == model.JobDispatched && errors.As(err, &refused):
		return "not delivered there yet" // it does not know the job: our message is still on its way
	case errors.Is(err, bridge.ErrNotRouted):
		return "no agent has taken it yet"
	case errors.Is(err, bridge.ErrUnreachable):
		return "not connected"
	case errors.Is(err, bridge.ErrNoAnswer):
		return fmt.Sprintf("no answer within %v", bridge.LogsWait)
	case errors.Is(err, bridge.ErrNotSent):
		return "its message is gone"
	case errors.As(err, &refused):
		return refused.Reason
	}
	return err.Error() // the store failed
}
