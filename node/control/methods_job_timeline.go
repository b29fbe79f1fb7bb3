package control

import (
	"context"
	"fmt"
	"time"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/store"
	"github.com/hyphae-run/hyphae/node/api"
	"github.com/hyphae-run/hyphae/node/api/wire"
)

func (h *Handlers) registerJobTimelineMethods() {
	api.Register(h.table, "job.timeline", "A job's status timeline (each move with its time, attempt and detail, "+
		"oldest first; the newest 100 kept) and its attempts (queued, started, ended, runner, error) drawn from it.",
		func(ctx context.Context, p wire.JobRef) (*wire.TimelineView, error) {
			if _, _, err := store.ParseJobKey(p.Key); err != nil {
				return nil, api.InvalidParams("key", "%v", err)
			}
			if _, err := h.Store.Jobs.LoadJobKey(ctx, p.Context, p.Key); err != nil {
				return nil, h.notFound(ctx, err, p.Context, p.Key)
			}
			es, err := h.Store.Jobs.Timeline(ctx, p.Context, p.Key)
			if err != nil {
				return nil, err
			}
			return timelineView(p.Key, es), nil
		})
}

// timelineView builds job key's TimelineView from its entries.
func timelineView(key string, es []store.TimelineEntry) *wire.TimelineView {
	v := &wire.TimelineView{Key: key, Timeline: make([]wire.TimelineEvent, len(es)), Attempts: []wire.AttemptView{}}
	for i, e := range es {
		v.Timeline[i] = wire.TimelineEvent{At: time.UnixMilli(e.TimeMS).UTC().Format("2006-01-02T15:04:05.000Z07:00"),
			AtMS: e.TimeMS, Event: e.Event, Attempt: e.Attempt, Detail: e.Detail}
	}
	v.Attempts = attemptsOf(es)
	return v
}

// attemptsOf draws the attempts from a timeline: an attempt begins with
// its first entry at that attempt number (attempt 0, before the first
// dispatch, counts as 1). Every attempt but the last has an end: one
// whose end is not on the timeline (recorded before requeues wrote it)
// ended error when the next began.
func attemptsOf(es []store.TimelineEntry) []wire.AttemptView {
	out := []wire.AttemptView{}
	for _, e := range es {
		n := max(e.Attempt, 1)
		if len(out) == 0 || out[len(out)-1].Attempt != n {
			if len(out) > 0 {
				superseded(&out[len(out)-1], n, e.TimeMS)
			}
			out = append(out, wire.AttemptView{Attempt: n, Status: string(model.JobDispatched)})
		}
		a := &out[len(out)-1]
		applyEntry(a, e)
	}
	return out
}

// applyEntry updates a with timeline entry e of its attempt.
func applyEntry(a *wire.AttemptView, e store.TimelineEntry) {
	switch e.Event {
	case store.EventCreated, store.EventRetry, string(model.JobDispatched), string(model.JobWaiting):
		if a.QueuedMS == 0 {
			a.QueuedMS = e.TimeMS
		}
		if e.Event == store.EventCreated && e.Detail != "" {
			a.Status = e.Detail
		} else if e.Event != store.EventCreated {
			a.Status = string(model.JobDispatched)
			if e.Event == string(model.JobWaiting) {
				a.Status = e.Event
			}
		}
	case store.EventSent:
		a.SentTo = e.Detail
	case string(model.JobStarted):
		a.StartedMS, a.Status = e.TimeMS, e.Event
		if e.Detail != "" {
			a.Runner = e.Detail
		}
	case string(model.JobFinished), string(model.JobError):
		// The first end is when it ended; a later one (stopped while
		// waiting to retry) says how the attempt was settled.
		a.Status = e.Event
		if a.EndedMS == 0 {
			a.EndedMS = e.TimeMS
			if a.StartedMS > 0 {
				a.DurationMS = a.EndedMS - a.StartedMS
			}
		}
		if e.Event == string(model.JobError) {
			a.Error = e.Detail
		}
	}
}

// superseded ends a, when its end is not known, at atMS, when attempt
// next began: it failed, since the job was queued again.
func superseded(a *wire.AttemptView, next, atMS int64) {
	if a.EndedMS != 0 {
		return
	}
	a.EndedMS, a.Status = atMS, string(model.JobError)
	if a.Error == "" {
		a.Error = fmt.Sprintf("no end recorded; attempt %d followed", next)
	}
	if a.StartedMS > 0 {
		a.DurationMS = a.EndedMS - a.StartedMS
	}
}
