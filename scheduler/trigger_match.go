package scheduler

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/hyphae-run/hyphae/context/model"
)

// payloadField reads the field at dotted path (order.id) of a JSON object
// as text: a string as it is, a number, boolean or null as written, an
// object or list as compact JSON. ok is false when a step is missing or
// data is no object.
func payloadField(data json.RawMessage, path string) (string, bool) {
	cur := data
	for _, step := range strings.Split(path, ".") {
		var obj map[string]json.RawMessage
		if json.Unmarshal(cur, &obj) != nil {
			return "", false
		}
		next, ok := obj[step]
		if !ok {
			return "", false
		}
		cur = next
	}
	var s string
	if json.Unmarshal(cur, &s) == nil {
		return s, true
	}
	var b bytes.Buffer
	if json.Compact(&b, cur) != nil {
		return "", false
	}
	return b.String(), true
}

// WhereFrom, in a trigger's where, is the event's sender: the peer that
// signed a received event (model.Event.From, set by the bridge from the
// envelope), or this agent for its own. It is never read from the
// payload, where any publisher could write any peer's ID.
const WhereFrom = "from"

// matchWhere reports whether every field of where has its value in event
// e's payload (compared as text, so 42 in YAML matches 42 or "42"), and
// WhereFrom is e's sender (self, this agent's peer ID, for its own).
func matchWhere(where map[string]string, e *model.Event, self string) bool {
	for path, want := range where {
		if path == WhereFrom {
			if sender(e, self) != want {
				return false
			}
			continue
		}
		if got, ok := payloadField(e.Data, path); !ok || got != want {
			return false
		}
	}
	return true
}

// sender is who published e: the signer of a received event, else self.
func sender(e *model.Event, self string) string {
	if e.From != "" {
		return e.From
	}
	return self
}
