package scheduler

import (
	"bytes"
	"encoding/json"
	"strings"
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

// matchWhere reports whether every field of where has its value in the
// payload data (compared as text, so 42 in YAML matches 42 or "42").
func matchWhere(where map[string]string, data json.RawMessage) bool {
	for path, want := range where {
		if got, ok := payloadField(data, path); !ok || got != want {
			return false
		}
	}
	return true
}
