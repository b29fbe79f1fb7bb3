package starters

import (
	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/scheduler/flowfile"
)

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
		if got, ok := flowfile.PayloadField(e.Data, path); !ok || got != want {
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
