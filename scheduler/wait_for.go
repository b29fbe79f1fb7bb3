package scheduler

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/store"
	"github.com/hyphae-run/hyphae/scheduler/flowfile"
)

// A wait_for step is a job of type store.WaitForType that the scheduler
// dispatches as any local job, onto queue:wait_for; this agent's wait
// loop (not a runner) takes it and parks it in Redis (store.ParkWait):
// a member of the set of waits for its event name and correlation, and a
// timeout in the timers ZSET. No process or goroutine holds it. The event
// loop ends it: finished, with the event as its result, when a matching
// event comes (resumeWaits), or error at its timeout; either way the job
// end goes through store.CompleteJob like any other, so the flow goes on
// (or fails and compensates) as it would after a job. A restarted agent
// loses nothing: the set, the timer and the job are in Redis.

// park parks the wait_for job key (taken from queue:wait_for). A spec it
// cannot use ends the job in error, saying why.
func (s *Scheduler) park(ctx context.Context, ctxID uint64, key string) error {
	j, err := s.st.Jobs.LoadJobKey(ctx, ctxID, key)
	if errors.Is(err, store.ErrNotFound) || errors.Is(err, model.ErrBadField) {
		return nil
	}
	if err != nil {
		return err
	}
	if j.Status != model.JobDispatched {
		return nil // cancelled or ended meanwhile
	}
	w, why := waitOf(j, s.cfg.Now())
	if why != "" {
		return s.endWait(ctx, ctxID, key, j.Attempt, model.JobError, model.Hash{"error": why})
	}
	seen, err := s.st.Events.ParkWait(ctx, ctxID, store.WaitForProcessingKey(s.cfg.owner()), w)
	if err != nil {
		return err
	}
	s.log.Info("wait_for: parked", "context", ctxID, "job", key, "event", w.Name, "correlation", w.Corr(),
		"deadline", w.Deadline)
	if seen == "" {
		return nil
	}
	e, err := s.loadEvent(ctx, ctxID, seen)
	if err != nil || e == nil {
		return err
	}
	return s.resume(ctx, ctxID, store.WaitMember(key, j.Attempt), w.Name, w.Corr(), e)
}

// waitOf reads what job j waits for, or why it cannot wait.
func waitOf(j *model.RunnerJob, now time.Time) (store.Wait, string) {
	var spec flowfile.WaitScript
	if err := json.Unmarshal([]byte(j.Script), &spec); err != nil || spec.Event == "" || spec.TimeoutMs <= 0 {
		return store.Wait{}, fmt.Sprintf("wait_for: unusable spec %q (want {event, correlation, timeout_ms})", j.Script)
	}
	value, ok := "", false
	if spec.Correlation != "" {
		value, ok = flowfile.PayloadField(json.RawMessage(j.EnvVars[flowfile.EnvEvent]), spec.Correlation)
	}
	if !ok {
		value = j.EnvVars[flowfile.EnvCorrelationID]
	}
	if value == "" {
		return store.Wait{}, fmt.Sprintf("wait_for %s: no correlation id: the run has no event field %q "+
			"and no %s (start it by an event, or set it in the flow's env)", spec.Event, spec.Correlation, flowfile.EnvCorrelationID)
	}
	return store.Wait{Job: store.JobKey(j.CallerID, j.ID), Attempt: j.Attempt, Name: spec.Event,
		Field: spec.Correlation, Value: value,
		Deadline: now.Add(time.Duration(spec.TimeoutMs) * time.Millisecond)}, ""
}

// resumeWaits ends, finished, every wait_for parked for event e (and
// records e for the waits parked later).
func (s *Scheduler) resumeWaits(ctx context.Context, ctxID uint64, e *model.Event) error {
	fields, err := s.st.Events.WaitFields(ctx, ctxID, e.Name)
	if err != nil {
		return err
	}
	for _, field := range fields {
		value, ok := "", false
		if field != "" {
			value, ok = flowfile.PayloadField(e.Data, field)
		}
		if !ok {
			value = e.CorrelationID
		}
		if value == "" {
			continue
		}
		corr := store.WaitCorr(field, value)
		members, err := s.st.Events.SeeEvent(ctx, ctxID, e.Name, corr, e.Key)
		if err != nil {
			return err
		}
		for _, m := range members {
			if err := s.resume(ctx, ctxID, m, e.Name, corr, e); err != nil {
				return err
			}
		}
	}
	return nil
}

// resume ends the parked wait member, finished, with event e as its
// result: HYPHAE_IN_<STEP>_EVENT (the payload), _EVENT_NAME, _EVENT_ID and
// _CORRELATION_ID downstream.
func (s *Scheduler) resume(ctx context.Context, ctxID uint64, member, name, corr string, e *model.Event) error {
	key, attempt, ok := store.ParseWaitMember(member)
	if !ok {
		return s.st.Events.Unpark(ctx, ctxID, name, corr, member)
	}
	res := (&model.RunnerJob{Result: map[string]string{"event": string(e.Data), "event_name": e.Name,
		"event_id": e.ID, "correlation_id": e.CorrelationID}}).ToHash()["result"]
	if err := s.endWait(ctx, ctxID, key, attempt, model.JobFinished, model.Hash{"result": res}); err != nil {
		return err
	}
	s.log.Info("wait_for: event came", "context", ctxID, "job", key, "event", name, "event_id", e.ID)
	return s.st.Events.Unpark(ctx, ctxID, name, corr, member)
}

// waitTimedOut ends the parked wait member in error: its time is up.
func (s *Scheduler) waitTimedOut(ctx context.Context, ctxID uint64, member string) error {
	key, attempt, ok := store.ParseWaitMember(member)
	if !ok {
		return nil
	}
	j, err := s.st.Jobs.LoadJobKey(ctx, ctxID, key)
	if errors.Is(err, store.ErrNotFound) || errors.Is(err, model.ErrBadField) {
		return nil
	}
	if err != nil {
		return err
	}
	name, corr := j.Extra["wait_event"], j.Extra["wait_correlation"]
	why := fmt.Sprintf("wait_for: no %s event with %s came in time", name, corr)
	if err := s.endWait(ctx, ctxID, key, attempt, model.JobError, model.Hash{"error": why}); err != nil {
		return err
	}
	s.log.Info("wait_for: timed out", "context", ctxID, "job", key, "event", name, "correlation", corr)
	return s.st.Events.Unpark(ctx, ctxID, name, corr, member)
}

// endWait ends attempt of wait job key; an attempt that ended already (the
// event and the timeout raced, or the flow was cancelled) is left as is.
func (s *Scheduler) endWait(ctx context.Context, ctxID uint64, key string, attempt int64,
	status model.JobStatus, fields model.Hash) error {
	err := s.st.Jobs.CompleteJob(ctx, ctxID, key, attempt, status, fields)
	if errors.Is(err, store.ErrNotFound) || errors.Is(err, store.ErrFenced) || errors.Is(err, model.ErrBadTransition) {
		return nil
	}
	return err
}

// stopWait ends a wait_for step of a flow that was cancelled or failed
// (its node is cancelled): error, and out of the waits. One not parked
// yet is skipped by park, as it is no longer dispatched.
func (s *Scheduler) stopWait(ctx context.Context, ctxID uint64, key string, j *model.RunnerJob) {
	why := "stopped: the flow ended before the event came"
	if err := s.endWait(ctx, ctxID, key, j.Attempt, model.JobError, model.Hash{"error": why}); err != nil {
		s.log.Warn("wait_for: stop", "job", key, "err", err)
		return
	}
	if name := j.Extra["wait_event"]; name != "" {
		member := store.WaitMember(key, j.Attempt)
		if err := s.st.Events.Unpark(ctx, ctxID, name, j.Extra["wait_correlation"], member); err != nil {
			s.log.Warn("wait_for: unpark", "job", key, "err", err)
		}
	}
}
