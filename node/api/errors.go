package api

import (
	"errors"
	"fmt"
)

// JSON-RPC error codes. The -3200x range is ours.
const (
	CodeParse          = -32700
	CodeInvalidRequest = -32600
	CodeNoMethod       = -32601
	CodeInvalidParams  = -32602
	CodeInternal       = -32603
	CodeNotFound       = -32001 // the object does not exist
	CodeDenied         = -32002 // not allowed
	CodeConflict       = -32003 // exists already, or a bad state change
	CodeUnavailable    = -32004 // the agent cannot do it now (draining, no store)
)

// Error is a JSON-RPC error object; handlers return it to choose the code.
type Error struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
}

func (e *Error) Error() string { return fmt.Sprintf("%s (code %d)", e.Message, e.Code) }

// Errorf builds an *Error.
func Errorf(code int, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// InvalidParams names the offending field.
func InvalidParams(field, format string, args ...any) *Error {
	return &Error{Code: CodeInvalidParams, Message: "invalid params: " + field + ": " + fmt.Sprintf(format, args...),
		Data: map[string]string{"field": field}}
}

// Classifier maps a domain error to a code; the node installs one that
// knows its packages' sentinel errors.
type Classifier func(error) int

func toError(err error, classify Classifier) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	code := CodeInternal
	if classify != nil {
		if c := classify(err); c != 0 {
			code = c
		}
	}
	return &Error{Code: code, Message: err.Error()}
}
