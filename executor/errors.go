package executor

import "errors"

// Errors returned by the Runner; match with errors.Is.
var (
	// ErrJobEnded: Stop was asked for a job that already finished or failed.
	ErrJobEnded = errors.New("job already ended")
	// ErrNotStarted: an operation that needs Start was called before it.
	ErrNotStarted = errors.New("runner not started")
	// ErrStarted: Start was called twice.
	ErrStarted = errors.New("runner already started")
)

// Causes of a killed attempt, attached to its context with
// context.WithCancelCause; the first one wins.
var (
	errTimeout   = errors.New("timeout")
	errStopped   = errors.New("stopped")
	errDrained   = errors.New("drained")
	errLeaseLost = errors.New("lease lost")
)

// Reasons written into a job's error field.
const (
	reasonStopped = "stopped"
	reasonDrained = "drained"
)
