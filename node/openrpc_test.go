package node_test

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hyphae-run/hyphae/node/api"
)

// openrpcDoc is the part of rpc.discover's document this test reads.
type openrpcDoc struct {
	Methods []struct {
		Name   string      `json:"name"`
		Params []paramDesc `json:"params"`
		Result resultDesc  `json:"result"`
		Shapes []shapeDesc `json:"x-shapes"`
	} `json:"methods"`
}

type paramDesc struct {
	Name     string         `json:"name"`
	Required bool           `json:"required"`
	Schema   map[string]any `json:"schema"`
}

type resultDesc struct {
	Schema map[string]any `json:"schema"`
}

type shapeDesc struct {
	Params []paramDesc `json:"params"`
	Result resultDesc  `json:"result"`
}

// sample is a value of schema's type; known names get values that exist
// on the agent (hints), so some calls succeed and their results are
// checked too.
func sample(name string, schema map[string]any, hints map[string]any) any {
	if v, ok := hints[name]; ok && fits(v, schema) {
		return v
	}
	switch schema["type"] {
	case "integer", "number":
		return 1
	case "string":
		return "x"
	case "boolean":
		return false
	case "array":
		return []any{}
	case "object":
		return map[string]any{}
	}
	return nil
}

func fits(v any, schema map[string]any) bool {
	switch v.(type) {
	case string:
		return schema["type"] == "string"
	case int, uint64:
		return schema["type"] == "integer" || schema["type"] == "number"
	}
	return false
}

// typeRefusal matches the server's refusal of a value of the wrong JSON
// type ("want control.SeedActorIn, got string").
var typeRefusal = regexp.MustCompile(`: want [\w.\[\]*]+, got \w+$`)

// conforms checks v against the generator's schemas: types, and every
// key of an object declared among its properties.
func conforms(v any, schema map[string]any, at string) error {
	if alts, ok := schema["oneOf"].([]any); ok {
		var errs []string
		for _, alt := range alts {
			err := conforms(v, alt.(map[string]any), at)
			if err == nil {
				return nil
			}
			errs = append(errs, err.Error())
		}
		return fmt.Errorf("%s matches no oneOf: %s", at, strings.Join(errs, "; "))
	}
	if v == nil || schema["type"] == nil {
		return nil // null stands for an empty list, map or pointer; {} is anything
	}
	switch t := v.(type) {
	case map[string]any:
		if schema["type"] != "object" {
			return fmt.Errorf("%s: an object, declared %v", at, schema["type"])
		}
		props, _ := schema["properties"].(map[string]any)
		extra, _ := schema["additionalProperties"].(map[string]any)
		for k, x := range t {
			s, ok := props[k].(map[string]any)
			if !ok && extra == nil {
				return fmt.Errorf("%s.%s: not declared", at, k)
			}
			if !ok {
				s = extra
			}
			if err := conforms(x, s, at+"."+k); err != nil {
				return err
			}
		}
	case []any:
		if schema["type"] != "array" {
			return fmt.Errorf("%s: a list, declared %v", at, schema["type"])
		}
		items, _ := schema["items"].(map[string]any)
		for i, x := range t {
			if err := conforms(x, items, fmt.Sprintf("%s[%d]", at, i)); err != nil {
				return err
			}
		}
	case string:
		if schema["type"] != "string" {
			return fmt.Errorf("%s: a string, declared %v", at, schema["type"])
		}
	case bool:
		if schema["type"] != "boolean" {
			return fmt.Errorf("%s: a boolean, declared %v", at, schema["type"])
		}
	case float64:
		if schema["type"] != "integer" && schema["type"] != "number" {
			return fmt.Errorf("%s: a number, declared %v", at, schema["type"])
		}
	}
	return nil
}

// rpc.discover describes what the server accepts and answers: every
// method, called in each params shape its document declares with
// sample values (first the required params only, then all of them), is
// never refused for a declared param (unknown field, or a value of the
// declared type refused as the wrong type), and each result it answers
// conforms to the declared result schema.
func TestOpenRPCDescribesWhatTheServerAccepts(t *testing.T) {
	t.Parallel()
	a := startAgent(t, agentOpts{tcpAPI: true})
	c := newSeedClient(t, a)
	a.call(t, "context.create", map[string]any{"id": 1}, nil)
	var job struct {
		Key string `json:"key"`
	}
	a.call(t, "job.run", map[string]any{"context": 1, "type": "sh", "script": "echo hi", "wait": 30}, &job)
	c.call(t, "job.create", map[string]any{"context_id": 1, "job": map[string]any{"id": 2, "script": "true", "script_type": "sh"}}, nil)
	c.call(t, "flow.create", map[string]any{"context_id": 1, "flow": map[string]any{"id": 1, "jobs": []int{2}}}, nil)
	c.call(t, "runner.create", map[string]any{"context_id": 1, "runner": map[string]any{"id": 1, "local": true}}, nil)
	var self struct {
		ID uint64 `json:"id"`
	}
	a.call(t, "actor.load", map[string]any{"actor": "self"}, &self)
	hints := map[string]any{"context": 1, "context_id": 1, "id": 1, "caller_id": self.ID, "key": job.Key,
		"actor": "self", "timeout": 1, "wait": 1, "limit": 1}

	var doc openrpcDoc
	a.call(t, "rpc.discover", nil, &doc)
	succeeded := 0
	for _, m := range doc.Methods {
		if m.Name == "node.drain" || m.Name == "node.prune" { // they would stop the agent or drop its data
			continue
		}
		shapes := m.Shapes
		if len(shapes) == 0 {
			shapes = []shapeDesc{{Params: m.Params, Result: m.Result}}
		}
		for _, sh := range shapes {
			for _, all := range []bool{false, true} {
				params := map[string]any{}
				for _, p := range sh.Params {
					if p.Required || all {
						params[p.Name] = sample(p.Name, p.Schema, hints)
					}
				}
				res, e := callWithin(t, c, m.Name, params)
				if e != nil {
					if e.Code == api.CodeInvalidParams && (strings.Contains(e.Message, "unknown field") || typeRefusal.MatchString(e.Message)) {
						if f := errField(e); f != "" && declared(sh.Params, f) {
							t.Errorf("%s %v: refused the declared param %s: %s", m.Name, params, f, e.Message)
						}
					}
					if e.Code == api.CodeInternal {
						t.Errorf("%s %v: internal error %s", m.Name, params, e.Message)
					}
					continue
				}
				succeeded++
				var v any
				_ = json.Unmarshal(res, &v)
				if err := conforms(v, sh.Result.Schema, m.Name); err != nil {
					t.Errorf("%s %v: the result does not match the document: %v\n%s", m.Name, params, err, res)
				}
			}
		}
	}
	if succeeded < 20 {
		t.Fatalf("only %d calls succeeded: the result check barely ran", succeeded)
	}
}

// callWithin calls with a deadline: a wait that runs out is not an error
// of the document.
func callWithin(t *testing.T, c *seedClient, method string, params map[string]any) (json.RawMessage, *api.Error) {
	t.Helper()
	done := make(chan struct{})
	var res json.RawMessage
	var e *api.Error
	go func() { defer close(done); res, e = c.try(t, method, params) }()
	select {
	case <-done:
		return res, e
	case <-time.After(30 * time.Second):
		t.Fatalf("%s %v: no answer within 30s", method, params)
	}
	return nil, nil
}

func errField(e *api.Error) string {
	if d, ok := e.Data.(map[string]any); ok {
		if f, ok := d["field"].(string); ok {
			return f
		}
	}
	return ""
}

func declared(ps []paramDesc, name string) bool {
	for _, p := range ps {
		if p.Name == name {
			return true
		}
	}
	return false
}
