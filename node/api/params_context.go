package api

import (
	"encoding/json"
)

// Hyphae's methods name a call's context "context"; the seed
// coordinator's name it "context_id", and most methods take either
// (RegisterShapes). A call that gives both would be told that one of
// them is an unknown field, which reads as if that name were wrong: it
// is told to give one instead.

// bothContexts returns the error for raw's params when they hold both
// "context" and "context_id" and e, the decoding error, names one of
// them as unknown; otherwise e.
func bothContexts(raw json.RawMessage, e *Error) *Error {
	field, _ := e.Data.(map[string]string)
	if f := field["field"]; f != "context" && f != "context_id" {
		return e
	}
	var keys map[string]json.RawMessage
	if json.Unmarshal(raw, &keys) != nil {
		return e
	}
	_, a := keys["context"]
	_, b := keys["context_id"]
	if !a || !b {
		return e
	}
	return InvalidParams(field["field"], "give context or context_id, not both")
}
