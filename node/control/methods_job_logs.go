package control

import (
	"context"
	"errors"
	"fmt"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/store"
	"github.com/hyphae-run/hyphae/node/api"
	"github.com/hyphae-run/hyphae/overlay/bridge"
)

// LogsView answers job.logs.
type LogsView struct {
	Lines  []string `json:"lines"`
	Next   int64    `json:"next"`
	Status string   `json:"status"`
	Runner string   `json:"runner,omitempty"` // the agent a job sent away went to
	// Source says where the lines of a job sent away come from: "runner"
	// (its runner's agent, which holds the whole log: indexes are its) or
	// "result" (the last lines its result brought home; see Note).
	Source string `json:"source,omitempty"`
	More   bool   `json:"more,omitempty"` // more lines wait after Next: ask again at once
	Note   string `json:"note,omitempty"` // why the runner's agent was not read
	// ResultLines is how many last lines a result brings home (with Note).
	ResultLines int `json:"result_lines,omitempty"`
	// Entries are Lines with their time and stream, when asked for (meta).
	Entries []LogEntry `json:"entries,omitempty"`

	metas []string // each line's store.LogLine meta, for Entries
}

func (h *Handlers) registerJobLogsMethods() {
	h.registerJobTimelineMethods() // its sibling: what happened to the job, beside what it wrote
	api.Register(h.table, "job.logs", "A job's output lines from index `from` on and its status. "+
		"A job sent to another agent is read there (source runner) while that agent answers, "+
		"else from the last lines its result brought home (source result, with a note why). "+
		"With meta, entries give each line with its time (ts) and stream (stdout, stderr, agent; empty when not known).",
		func(ctx context.Context, p struct {
			JobRef
			From int64 `json:"from,omitempty"`
			Meta bool  `json:"meta,omitempty"`
		}) (*LogsView, error) {
			v, err := h.jobLogs(ctx, p.JobRef, p.From)
			if err != nil || !p.Meta {
				return v, err
			}
			v.Entries = logEntries(v.Lines, v.metas)
			return v, nil
		})
}

// jobLogs answers job.logs: lines from index from on.
func (h *Handlers) jobLogs(ctx context.Context, p JobRef, from int64) (*LogsView, error) {
	if _, _, err := store.ParseJobKey(p.Key); err != nil {
		return nil, api.InvalidParams("key", "%v", err)
	}
	if from < 0 {
		return nil, api.InvalidParams("from", "must not be negative")
	}
	j, err := h.Store.LoadJobKey(ctx, p.Context, p.Key)
	if err != nil {
		return nil, err
	}
	if j.MessageKey() != "" { // sent to another agent
		return h.sentJobLogs(ctx, p, j, from)
	}
	return h.localLogs(ctx, p, j, from)
}

// localLogs reads job j's lines from this agent's store.
func (h *Handlers) localLogs(ctx context.Context, p JobRef, j *model.RunnerJob, from int64) (*LogsView, error) {
	ll, err := h.Store.ReadLogLines(ctx, p.Context, p.Key, from)
	if err != nil {
		return nil, err
	}
	lines, metas := splitLogLines(ll)
	return &LogsView{Lines: lines, Next: from + int64(len(lines)), Status: string(j.Status), Runner: j.Runner,
		metas: metas}, nil
}

// sentJobLogs reads the lines of job j, sent to another agent, from that
// agent (Bridge.RemoteLogs); when it cannot be read, from the copy the
// job's result brought home, with a note saying why.
func (h *Handlers) sentJobLogs(ctx context.Context, p JobRef, j *model.RunnerJob, from int64) (*LogsView, error) {
	r, err := h.Bridge.RemoteLogs(ctx, p.Context, p.Key, j.MessageKey(), from)
	if err == nil {
		if r.Lines == nil {
			r.Lines = []string{}
		}
		return &LogsView{Lines: r.Lines, Next: r.Next, Status: r.Status, Runner: r.Runner, Source: "runner", More: r.More,
			metas: r.Meta}, nil
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
