package store

import "errors"

// Sentinel errors of the store; match with errors.Is.
var (
	// ErrNotFound: the key does not exist.
	ErrNotFound = errors.New("not found")
	// ErrBadContext: a context id this Redis server cannot SELECT (or 0).
	ErrBadContext = errors.New("invalid context id")
	// ErrFenced: a write from an attempt that is no longer current.
	ErrFenced = errors.New("stale attempt")
	// ErrDenied: the actor is unknown or lacks the role needed.
	ErrDenied = errors.New("permission denied")
	// ErrExists: an object with that id already exists.
	ErrExists = errors.New("already exists")
)
