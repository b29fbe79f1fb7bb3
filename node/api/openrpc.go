package api

import (
	"context"
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

// OpenRPC builds the OpenRPC 1.2 document for every method in t.
func OpenRPC(t *Table, title, version string) map[string]any {
	var methods []any
	for _, m := range t.Methods() {
		methods = append(methods, map[string]any{
			"name":           m.Name,
			"summary":        m.Summary,
			"paramStructure": "by-name",
			"params":         paramDescriptors(m.Params),
			"result":         map[string]any{"name": "result", "schema": schemaOf(m.Result, 0)},
		})
	}
	return map[string]any{
		"openrpc": "1.2.6",
		"info":    map[string]any{"title": title, "version": version},
		"methods": methods,
	}
}

func paramDescriptors(t reflect.Type) []any {
	out := []any{}
	if t == nil || t.Kind() != reflect.Struct {
		return out
	}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, omit := jsonName(f)
		if name == "" {
			continue
		}
		out = append(out, map[string]any{"name": name, "required": !omit, "schema": schemaOf(f.Type, 0)})
	}
	return out
}

func jsonName(f reflect.StructField) (string, bool) {
	if !f.IsExported() {
		return "", false
	}
	tag := f.Tag.Get("json")
	if tag == "-" {
		return "", false
	}
	name, opts, _ := strings.Cut(tag, ",")
	if name == "" {
		name = f.Name
	}
	return name, strings.Contains(opts, "omitempty")
}

// schemaOf is a small JSON Schema generator for plain data types.
func schemaOf(t reflect.Type, depth int) map[string]any {
	if t == nil || depth > 6 {
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
		for i := 0; i < t.NumField(); i++ {
			if name, _ := jsonName(t.Field(i)); name != "" {
				props[name] = schemaOf(t.Field(i).Type, depth+1)
			}
		}
		return map[string]any{"type": "object", "properties": props}
	}
	return map[string]any{}
}
