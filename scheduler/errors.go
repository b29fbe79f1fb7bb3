package scheduler

import (
	"errors"
	"fmt"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/store"
)

var (
	// ErrClosed: the scheduler was shut down (or not started).
	ErrClosed = errors.New("scheduler: not running")
	// ErrEnded: the flow has finished or failed already.
	ErrEnded = fmt.Errorf("%w: flow has ended", model.ErrBadTransition)
	// errStale: Redis disagrees with the cached flow; reload and retry.
	errStale = errors.New("flow state changed underneath; reloading")
	// ErrNotFound: no such flow (the store's sentinel).
	ErrNotFound = store.ErrNotFound
)

// stateError says an operation does not fit the flow's state; it matches
// model.ErrBadTransition.
func stateError(format string, args ...any) error {
	return fmt.Errorf("%w: %s", model.ErrBadTransition, fmt.Sprintf(format, args...))
}
