package model

import (
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"strings"
)

// Hash is the field→value form of an object as stored in Redis.
type Hash = map[string]string

// reader decodes fields of one hash and remembers the first error and
// which fields it consumed, so the rest can be kept as Extra.
type reader struct {
	key  string
	h    Hash
	used map[string]bool
	err  error
}

func newReader(key string, h Hash) *reader {
	return &reader{key: key, h: h, used: make(map[string]bool, len(h))}
}

func (r *reader) fail(field, val string, err error) {
	if r.err == nil {
		r.err = &FieldError{Key: r.key, Field: field, Value: val, Err: err}
	}
}

func (r *reader) raw(field string) (string, bool) {
	r.used[field] = true
	v, ok := r.h[field]
	return v, ok && v != ""
}

func (r *reader) str(field string) string { v, _ := r.raw(field); return v }

func (r *reader) u64(field string) uint64 {
	v, ok := r.raw(field)
	if !ok {
		return 0
	}
	n, err := strconv.ParseUint(v, 10, 64)
	if err != nil {
		r.fail(field, v, errors.New("want a non-negative decimal integer"))
	}
	return n
}

func (r *reader) i64(field string) int64 {
	v, ok := r.raw(field)
	if !ok {
		return 0
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		r.fail(field, v, errors.New("want a decimal integer"))
	}
	return n
}

func (r *reader) boolean(field string) bool {
	v, ok := r.raw(field)
	if !ok {
		return false
	}
	switch v {
	case "true", "1":
		return true
	case "false", "0":
		return false
	}
	r.fail(field, v, errors.New("want true or false"))
	return false
}

func (r *reader) json(field string, dst any) {
	v, ok := r.raw(field)
	if !ok {
		return
	}
	if err := json.Unmarshal([]byte(v), dst); err != nil {
		r.fail(field, v, errors.New("want JSON: "+err.Error()))
	}
}

// ids decodes a JSON list of ids; both [1,2] and ["1","2"] are accepted.
func (r *reader) ids(field string) []uint64 {
	v, ok := r.raw(field)
	if !ok {
		return nil
	}
	if out, ok := fastIDs(v); ok {
		return out
	}
	var raw []json.RawMessage
	if err := json.Unmarshal([]byte(v), &raw); err != nil {
		r.fail(field, v, errors.New("want a JSON list of ids"))
		return nil
	}
	out := make([]uint64, 0, len(raw))
	for _, m := range raw {
		s := string(m)
		if len(s) >= 2 && s[0] == '"' {
			_ = json.Unmarshal(m, &s)
		}
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			r.fail(field, v, errors.New("want a JSON list of decimal ids"))
			return nil
		}
		out = append(out, n)
	}
	return out
}

// fastIDs parses the form this package writes, [1,2,3]; ok is false for
// anything else (strings, spaces, leading zeros, garbage), which then takes
// the general path.
func fastIDs(v string) (out []uint64, ok bool) {
	if len(v) < 2 || v[0] != '[' || v[len(v)-1] != ']' {
		return nil, false
	}
	body := v[1 : len(v)-1]
	if body == "" {
		return []uint64{}, true
	}
	out = make([]uint64, 0, strings.Count(body, ",")+1)
	for body != "" {
		var p string
		p, body, _ = strings.Cut(body, ",")
		if len(p) > 1 && p[0] == '0' {
			return nil, false
		}
		n, err := strconv.ParseUint(p, 10, 64)
		if err != nil {
			return nil, false
		}
		out = append(out, n)
	}
	return out, !strings.HasSuffix(v, ",]")
}

func (r *reader) strMap(field string) map[string]string {
	v, ok := r.raw(field)
	if !ok {
		return nil
	}
	// Fast path: every value is a string (what this package writes).
	var fast map[string]string
	if json.Unmarshal([]byte(v), &fast) == nil {
		if fast == nil {
			fast = map[string]string{}
		}
		return fast
	}
	var m map[string]any
	if err := unmarshalNumbers(v, &m); err != nil {
		r.fail(field, v, errors.New("want a JSON object"))
		return nil
	}
	out := make(map[string]string, len(m))
	for k, x := range m {
		switch t := x.(type) {
		case string:
			out[k] = t
		case nil:
			out[k] = ""
		default:
			b, _ := json.Marshal(t)
			out[k] = string(b)
		}
	}
	return out
}

// unmarshalNumbers decodes JSON keeping numbers as their exact text
// (json.Number), so that 12345678901234567891 is not rounded via float64.
func unmarshalNumbers(v string, dst any) error {
	d := json.NewDecoder(strings.NewReader(v))
	d.UseNumber()
	if err := d.Decode(dst); err != nil {
		return err
	}
	if _, err := d.Token(); err != io.EOF {
		return errors.New("trailing data after JSON value")
	}
	return nil
}

func (r *reader) strList(field string) []string {
	var out []string
	r.json(field, &out)
	return out
}

// extra returns the fields that were not consumed, or nil.
func (r *reader) extra() Hash {
	var out Hash
	for k, v := range r.h {
		if !r.used[k] {
			if out == nil {
				out = Hash{}
			}
			out[k] = v
		}
	}
	return out
}

// writer builds a hash.
type writer struct{ h Hash }

func newWriter(extra Hash) *writer {
	h := make(Hash, 16+len(extra))
	for k, v := range extra {
		h[k] = v
	}
	return &writer{h: h}
}

func (w *writer) str(f, v string)          { w.h[f] = v }
func (w *writer) u64(f string, v uint64)   { w.h[f] = strconv.FormatUint(v, 10) }
func (w *writer) i64(f string, v int64)    { w.h[f] = strconv.FormatInt(v, 10) }
func (w *writer) boolean(f string, v bool) { w.h[f] = strconv.FormatBool(v) }

func (w *writer) json(f string, v any) {
	b, err := json.Marshal(v)
	if err != nil { // only plain data is passed here
		panic("model: json: " + err.Error())
	}
	w.h[f] = string(b)
}

func (w *writer) ids(f string, v []uint64) {
	b := make([]byte, 0, 2+len(v)*8)
	b = append(b, '[')
	for i, x := range v {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendUint(b, x, 10)
	}
	w.h[f] = string(append(b, ']'))
}

func (w *writer) strMap(f string, v map[string]string) {
	if len(v) == 0 {
		w.h[f] = "{}"
		return
	}
	w.json(f, v)
}

func (w *writer) strList(f string, v []string) {
	if len(v) == 0 {
		w.h[f] = "[]"
		return
	}
	w.json(f, v)
}
