package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"sync"
)

// Handler serves one method with raw params.
type Handler func(ctx context.Context, params json.RawMessage) (any, error)

// Method is one row of the table.
type Method struct {
	Name    string
	Summary string
	Params  reflect.Type // struct type of params, or nil
	Result  reflect.Type // type of the result, or nil
	Handler Handler
	// Shapes, when set, are the params objects the method accepts
	// (RegisterShapes); Params and Result are then the first one's.
	Shapes []Shape
}

// Table is the method table shared by the server and rpc.discover.
type Table struct {
	mu      sync.RWMutex
	methods map[string]*Method // guarded by mu
}

// NewTable returns an empty table.
func NewTable() *Table { return &Table{methods: map[string]*Method{}} }

// Add registers m; a duplicate name panics (a programming error).
func (t *Table) Add(m *Method) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if _, dup := t.methods[m.Name]; dup {
		panic("api: duplicate method " + m.Name)
	}
	t.methods[m.Name] = m
}

// Get returns the method called name.
func (t *Table) Get(name string) (*Method, bool) {
	t.mu.RLock()
	defer t.mu.RUnlock()
	m, ok := t.methods[name]
	return m, ok
}

// Methods returns the table sorted by name.
func (t *Table) Methods() []*Method {
	t.mu.RLock()
	defer t.mu.RUnlock()
	out := make([]*Method, 0, len(t.methods))
	for _, m := range t.methods {
		out = append(out, m)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Register adds a typed method: params are decoded strictly into P
// (unknown fields are errors that name the field).
func Register[P, R any](t *Table, name, summary string, fn func(context.Context, P) (R, error)) {
	t.Add(&Method{
		Name:    name,
		Summary: summary,
		Params:  reflect.TypeFor[P](),
		Result:  reflect.TypeFor[R](),
		Handler: func(ctx context.Context, raw json.RawMessage) (any, error) {
			var p P
			if err := decodeParams(raw, &p); err != nil {
				return nil, err
			}
			return fn(ctx, p)
		},
	})
}

func decodeParams(raw json.RawMessage, dst any) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		raw = []byte("{}")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst); err != nil {
		return bothContexts(raw, paramsError(err)) // params_context.go
	}
	return nil
}

func paramsError(err error) *Error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return InvalidParams(te.Field, "want %s, got %s", te.Type, te.Value)
	}
	msg := err.Error()
	if f, ok := strings.CutPrefix(msg, "json: unknown field "); ok {
		f = strings.Trim(f, `"`)
		return InvalidParams(f, "unknown field")
	}
	return &Error{Code: CodeInvalidParams, Message: fmt.Sprintf("invalid params: %v (params must be a JSON object)", err)}
}
