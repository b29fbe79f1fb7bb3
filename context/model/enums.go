package model

import "fmt"

// JobStatus is the lifecycle state of a RunnerJob.
type JobStatus string

// Job states (docs/design.md, "Redis layout").
const (
	JobDispatched JobStatus = "dispatched"
	JobWaiting    JobStatus = "waiting_for_prerequisites"
	JobStarted    JobStatus = "started"
	JobError      JobStatus = "error"
	JobFinished   JobStatus = "finished"
)

// jobMoves lists the allowed next states of each job state. A job that has
// failed may be dispatched again only as a new attempt (callers fence on
// attempt); a finished job is final.
var jobMoves = map[JobStatus][]JobStatus{
	"":            {JobDispatched, JobWaiting, JobStarted, JobError, JobFinished},
	JobDispatched: {JobDispatched, JobWaiting, JobStarted, JobError, JobFinished},
	JobWaiting:    {JobWaiting, JobDispatched, JobStarted, JobError},
	JobStarted:    {JobStarted, JobFinished, JobError, JobDispatched},
	JobError:      {JobDispatched},
	JobFinished:   {},
}

// Valid reports whether s is a known job status.
func (s JobStatus) Valid() bool { _, ok := jobMoves[s]; return ok && s != "" }

// Terminal reports whether s ends a job attempt.
func (s JobStatus) Terminal() bool { return s == JobError || s == JobFinished }

// CanMoveTo reports whether a job in state s may move to next.
func (s JobStatus) CanMoveTo(next JobStatus) bool {
	for _, n := range jobMoves[s] {
		if n == next {
			return true
		}
	}
	return false
}

// CheckMove returns ErrBadTransition (wrapped) when s cannot move to next.
func (s JobStatus) CheckMove(next JobStatus) error {
	if !s.CanMoveTo(next) {
		return fmt.Errorf("%w: job %q -> %q", ErrBadTransition, s, next)
	}
	return nil
}

// FlowStatus is the lifecycle state of a Flow.
type FlowStatus string

// Flow states.
const (
	FlowDispatched FlowStatus = "dispatched"
	FlowStarted    FlowStatus = "started"
	FlowError      FlowStatus = "error"
	FlowFinished   FlowStatus = "finished"
)

// Valid reports whether s is a known flow status.
func (s FlowStatus) Valid() bool {
	switch s {
	case FlowDispatched, FlowStarted, FlowError, FlowFinished:
		return true
	}
	return false
}

// Terminal reports whether the flow has ended.
func (s FlowStatus) Terminal() bool { return s == FlowError || s == FlowFinished }

// CanMoveTo reports whether a flow in state s may move to next.
func (s FlowStatus) CanMoveTo(next FlowStatus) bool {
	switch s {
	case "", FlowDispatched:
		return next.Valid()
	case FlowStarted:
		return next == FlowStarted || next.Terminal()
	}
	return false
}

// MessageStatus is the delivery state of a Message.
type MessageStatus string

// Message states.
const (
	MsgDispatched   MessageStatus = "dispatched"
	MsgAcknowledged MessageStatus = "acknowledged"
	MsgError        MessageStatus = "error"
	MsgProcessed    MessageStatus = "processed"
)

// Valid reports whether s is a known message status.
func (s MessageStatus) Valid() bool {
	switch s {
	case MsgDispatched, MsgAcknowledged, MsgError, MsgProcessed:
		return true
	}
	return false
}

// CanMoveTo reports whether a message in state s may move to next.
func (s MessageStatus) CanMoveTo(next MessageStatus) bool {
	switch s {
	case "", MsgDispatched:
		return next.Valid()
	case MsgAcknowledged:
		return next == MsgAcknowledged || next == MsgProcessed || next == MsgError
	}
	return false
}

// MessageType says what a Message carries.
type MessageType string

// Message types: the seed's job, chat, mail, plus result, ack, stop.
const (
	MsgTypeJob    MessageType = "job"
	MsgTypeChat   MessageType = "chat"
	MsgTypeMail   MessageType = "mail"
	MsgTypeResult MessageType = "result"
	MsgTypeAck    MessageType = "ack"
	MsgTypeStop   MessageType = "stop"
	// MsgTypeEvent is a named event with a JSON payload (model/event.go).
	MsgTypeEvent MessageType = "event"
)

// Valid reports whether t is a known message type.
func (t MessageType) Valid() bool {
	switch t {
	case MsgTypeJob, MsgTypeChat, MsgTypeMail, MsgTypeResult, MsgTypeAck, MsgTypeStop:
		return true
	case MsgTypeEvent:
		return true
	}
	return false
}

// Script types known to the contract. Runners may serve more by config.
const (
	ScriptOSIS   = "osis"
	ScriptSAL    = "sal"
	ScriptV      = "v"
	ScriptPython = "python"
	ScriptSh     = "sh"
	ScriptBash   = "bash"
)

// JobMoves returns the job lifecycle table (state → allowed next states);
// the store compiles it into its Lua scripts so both agree.
func JobMoves() map[JobStatus][]JobStatus {
	out := make(map[JobStatus][]JobStatus, len(jobMoves))
	for k, v := range jobMoves {
		out[k] = append([]JobStatus(nil), v...)
	}
	return out
}
