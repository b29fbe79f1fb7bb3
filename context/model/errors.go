package model

import (
	"errors"
	"fmt"
)

// Sentinel errors of this package.
var (
	// ErrBadTransition: a status change that the lifecycle does not allow.
	ErrBadTransition = errors.New("invalid status transition")
	// ErrBadField: a hash field that cannot be decoded (see FieldError).
	ErrBadField = errors.New("bad field")
)

// FieldError names the hash key and field that could not be decoded.
type FieldError struct {
	Key   string // Redis key of the hash, when known
	Field string
	Value string
	Err   error
}

func (e *FieldError) Error() string {
	v := e.Value
	if len(v) > 40 {
		v = v[:40] + "…"
	}
	return fmt.Sprintf("%s field %q = %q: %v", e.Key, e.Field, v, e.Err)
}

// Unwrap lets errors.Is(err, ErrBadField) match.
func (e *FieldError) Unwrap() []error { return []error{ErrBadField, e.Err} }
