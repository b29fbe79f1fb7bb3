package api

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
)

// AddDiscover registers rpc.discover, which returns an OpenRPC document
// generated from t itself.
func AddDiscover(t *Table, title, version string) {
	Register(t, "rpc.discover", "Returns this API's OpenRPC document.",
		func(context.Context, struct{}) (map[string]any, error) {
			return OpenRPC(t, title, version), nil
		})
}

// OpenRPC builds the OpenRPC 1.2 document for every method in t. A method
// with several params shapes (RegisterShapes) lists every param any shape
// takes, required only when every shape requires it, its result as oneOf
// the shapes' results, and each shape on its own under "x-shapes".
func OpenRPC(t *Table, title, version string) map[string]any {
	var methods []any
	for _, m := range t.Methods() {
		methods = append(methods, methodDoc(m))
	}
	return map[string]any{
		"openrpc": "1.2.6",
		"info":    map[string]any{"title": title, "version": version},
		"methods": methods,
	}
}

func methodDoc(m *Method) map[string]any {
	doc := map[string]any{
		"name":           m.Name,
		"summary":        m.Summary,
		"paramStructure": "by-name",
		"params":         paramDescriptors(m.Params),
		"result":         map[string]any{"name": "result", "schema": schemaOf(m.Result, 0)},
	}
	if len(m.Shapes) < 2 {
		return doc
	}
	var shapes, results []any
	var lists [][]map[string]any
	for _, sh := range m.Shapes {
		ps := paramDescriptors(sh.Params)
		lists = append(lists, ps)
		res := schemaOf(sh.Result, 0)
		shapes = append(shapes, map[string]any{"params": ps, "result": map[string]any{"name": "result", "schema": res}})
		results = appendNew(results, res)
	}
	doc["params"] = unionParams(lists)
	doc["x-shapes"] = shapes
	if len(results) > 1 {
		doc["result"] = map[string]any{"name": "result", "schema": map[string]any{"oneOf": results}}
	}
	return doc
}

// unionParams merges the shapes' param lists: each name once (first
// shape's schema), required only when every shape requires it.
func unionParams(lists [][]map[string]any) []map[string]any {
	out := []map[string]any{}
	seen := map[string]map[string]any{}
	for _, ps := range lists {
		for _, p := range ps {
			name := p["name"].(string)
			if seen[name] == nil {
				q := map[string]any{"name": name, "required": p["required"], "schema": p["schema"]}
				seen[name] = q
				out = append(out, q)
			}
		}
	}
	for name, q := range seen {
		for _, ps := range lists {
			if !requires(ps, name) {
				q["required"] = false
			}
		}
	}
	return out
}

func requires(ps []map[string]any, name string) bool {
	for _, p := range ps {
		if p["name"] == name {
			return p["required"] == true
		}
	}
	return false
}

// appendNew appends schema s unless an equal one is in list.
func appendNew(list []any, s map[string]any) []any {
	b, _ := json.Marshal(s)
	for _, x := range list {
		if xb, _ := json.Marshal(x); string(xb) == string(b) {
			return list
		}
	}
	return append(list, s)
}

func paramDescriptors(t reflect.Type) []map[string]any {
	out := []map[string]any{}
	if t == nil || t.Kind() != reflect.Struct {
		return out
	}
	for _, f := range jsonFields(t) {
		out = append(out, map[string]any{"name": f.name, "required": !f.omit, "schema": schemaOf(f.typ, 0)})
	}
	return out
}

// jsonField is one field as encoding/json sees it.
type jsonField struct {
	name string
	omit bool // omitempty: optional
	typ  reflect.Type
}

// jsonFields lists the fields encoding/json reads and writes for struct
// type t: exported, not "-", and the fields of an embedded struct without
// a JSON name inlined (so an embedded JobRef contributes context and key,
// not a field named JobRef). A name seen first wins, as the shallower
// field does in encoding/json.
func jsonFields(t reflect.Type) []jsonField {
	var out []jsonField
	seen := map[string]bool{}
	var walk func(t reflect.Type, depth int)
	walk = func(t reflect.Type, depth int) {
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			tag := f.Tag.Get("json")
			if tag == "-" {
				continue
			}
			name, opts, _ := strings.Cut(tag, ",")
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if f.Anonymous && name == "" && ft.Kind() == reflect.Struct && depth < 4 {
				walk(ft, depth+1)
				continue
			}
			if !f.IsExported() {
				continue
			}
			if name == "" {
				name = f.Name
			}
			if !seen[name] {
				seen[name] = true
				out = append(out, jsonField{name: name, omit: strings.Contains(opts, "omitempty"), typ: f.Type})
			}
		}
	}
	walk(t, 0)
	return out
}

var rawMessage = reflect.TypeFor[json.RawMessage]()

// schemaOf is a small JSON Schema generator for plain data types.
func schemaOf(t reflect.Type, depth int) map[string]any {
	if t == nil || depth > 6 || t == rawMessage {
		return map[string]any{}
	}
	switch t.Kind() {
	case reflect.Pointer:
		return schemaOf(t.Elem(), depth)
	case reflect.Bool:
		return map[string]any{"type": "boolean"}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return map[string]any{"type": "integer"}
	case reflect.Float32, reflect.Float64:
		return map[string]any{"type": "number"}
	case reflect.String:
		return map[string]any{"type": "string"}
	case reflect.Slice, reflect.Array:
		return map[string]any{"type": "array", "items": schemaOf(t.Elem(), depth+1)}
	case reflect.Map:
		return map[string]any{"type": "object", "additionalProperties": schemaOf(t.Elem(), depth+1)}
	case reflect.Struct:
		props := map[string]any{}
		for _, f := range jsonFields(t) {
			props[f.name] = schemaOf(f.typ, depth+1)
		}
		return map[string]any{"type": "object", "properties": props}
	}
	return map[string]any{}
}
