package api

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

type ref struct {
	Context uint64 `json:"context"`
	Key     string `json:"key"`
}

type ours struct {
	ref
	Timeout int64 `json:"timeout,omitempty"`
}

type seeds struct {
	ContextID uint64 `json:"context_id"`
	CallerID  uint64 `json:"caller_id"`
	ID        uint64 `json:"id"`
}

type shown struct {
	ref
	Status string `json:"status"`
}

func shapesTable() *Table {
	tbl := NewTable()
	RegisterShapes(tbl, "job.load", "two vocabularies",
		Alt(func(_ context.Context, p ours) (shown, error) { return shown{ref: p.ref, Status: "ours"}, nil }),
		Alt(func(_ context.Context, p seeds) (bool, error) { return p.ID == 3, nil }))
	return tbl
}

func call(t *testing.T, tbl *Table, method, params string) (any, error) {
	t.Helper()
	m, ok := tbl.Get(method)
	if !ok {
		t.Fatalf("no method %s", method)
	}
	return m.call(context.Background(), json.RawMessage(params))
}

// A method with two shapes goes to the one whose keys the params use;
// a key neither knows, or a mix of both, is an error naming a key.
func TestShapesPickByKeys(t *testing.T) {
	tbl := shapesTable()
	if got, err := call(t, tbl, "job.load", `{"context":1,"key":"job:1:2","timeout":5}`); err != nil || got.(shown).Status != "ours" {
		t.Fatalf("ours: %v %v", got, err)
	}
	if got, err := call(t, tbl, "job.load", `{"context_id":1,"caller_id":1,"id":3}`); err != nil || got != true {
		t.Fatalf("seed: %v %v", got, err)
	}
	if got, err := call(t, tbl, "job.load", `{}`); err != nil || got.(shown).Status != "ours" {
		t.Fatalf("no keys goes to the first shape: %v %v", got, err)
	}
	for params, field := range map[string]string{
		`{"context_id":1,"caller_id":1,"idd":3}`: "idd",
		`{"context":1,"key":"k","bogus":1}`:      "bogus",
		`{"context":1,"caller_id":1,"key":"k"}`:  "caller_id",
	} {
		_, err := call(t, tbl, "job.load", params)
		var e *Error
		if !errors.As(err, &e) || e.Code != CodeInvalidParams || !strings.Contains(e.Message, "unknown field") ||
			!strings.Contains(e.Message, field) {
			t.Errorf("%s: %v, want unknown field naming %q", params, err, field)
		}
	}
	// The two names of a call's context, given together, are told so.
	_, err := call(t, tbl, "job.load", `{"context":1,"context_id":1,"id":3}`)
	var e *Error
	if !errors.As(err, &e) || e.Code != CodeInvalidParams || !strings.Contains(e.Message, "give context or context_id, not both") {
		t.Errorf("context and context_id: %v, want to give one, not both", err)
	}
}

// The document flattens embedded structs as encoding/json does (no param
// or property named after the embedded type), lists every shape's params
// once, and gives the result of each shape.
func TestOpenRPCFlattensAndListsShapes(t *testing.T) {
	tbl := shapesTable()
	Register(tbl, "job.wait", "embedded params", func(_ context.Context, p ours) (shown, error) { return shown{}, nil })
	b, _ := json.Marshal(OpenRPC(tbl, "t", "v"))
	var doc struct {
		Methods []struct {
			Name   string `json:"name"`
			Params []struct {
				Name     string `json:"name"`
				Required bool   `json:"required"`
			} `json:"params"`
			Result struct {
				Schema map[string]any `json:"schema"`
			} `json:"result"`
			Shapes []json.RawMessage `json:"x-shapes"`
		} `json:"methods"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	for _, m := range doc.Methods {
		var names []string
		for _, p := range m.Params {
			names = append(names, p.Name)
			if m.Name == "job.load" && p.Required {
				t.Errorf("job.load: %s required though one shape lacks it", p.Name)
			}
		}
		got := strings.Join(names, ",")
		switch m.Name {
		case "job.wait":
			if got != "context,key,timeout" {
				t.Errorf("job.wait params %s", got)
			}
			props, _ := m.Result.Schema["properties"].(map[string]any)
			if _, bad := props["ref"]; bad || props["context"] == nil || props["status"] == nil {
				t.Errorf("job.wait result properties %v", props)
			}
		case "job.load":
			if got != "context,key,timeout,context_id,caller_id,id" || len(m.Shapes) != 2 || m.Result.Schema["oneOf"] == nil {
				t.Errorf("job.load params %s, %d shapes, result %v", got, len(m.Shapes), m.Result.Schema)
			}
		}
	}
}
