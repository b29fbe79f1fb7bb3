package flowfile

import (
	"bytes"
	"encoding/json"
	"strings"
)

// An event's payload is read by the dotted paths a flow file names: the
// fields of an `on:` where, and the correlation of `on:` and `wait_for:`.

// PayloadField reads the field at dotted path (order.id) of a JSON object
// as text: a string as it is, a number, boolean or null as written, an
// object or list as compact JSON. ok is false when a step is missing or
// data is no object.
func PayloadField(data json.RawMessage, path string) (string, bool) {
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
