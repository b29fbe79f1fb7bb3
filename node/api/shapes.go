package api

import (
	"bytes"
	"context"
	"encoding/json"
	"reflect"
)

// Shape is one params object a method accepts, with the handler for it.
// A method with several shapes (RegisterShapes) serves two vocabularies
// for one operation, e.g. Hyphae's {context, key} and the seed
// coordinator's {context_id, caller_id, id}.
type Shape struct {
	Params  reflect.Type
	Result  reflect.Type
	handler Handler
	fields  map[string]bool // the JSON names the params struct declares
}

// Alt is a shape whose params decode strictly into P.
func Alt[P, R any](fn func(context.Context, P) (R, error)) Shape {
	pt := reflect.TypeFor[P]()
	return Shape{Params: pt, Result: reflect.TypeFor[R](), fields: fieldSet(pt),
		handler: func(ctx context.Context, raw json.RawMessage) (any, error) {
			var p P
			if err := decodeParams(raw, &p); err != nil {
				return nil, err
			}
			return fn(ctx, p)
		}}
}

// RegisterShapes adds a method that accepts any of shapes. A call goes
// to the first shape that declares every key the params object holds
// (no keys: the first shape); when none does, to the shape that declares
// most of them, whose strict decoding then names the unknown key. So a
// key no shape knows is still an error, and so is a mix of two shapes.
func RegisterShapes(t *Table, name, summary string, shapes ...Shape) {
	if len(shapes) == 0 {
		panic("api: RegisterShapes " + name + " without shapes")
	}
	t.Add(&Method{Name: name, Summary: summary, Params: shapes[0].Params, Result: shapes[0].Result,
		Shapes: shapes,
		Handler: func(ctx context.Context, raw json.RawMessage) (any, error) {
			return pickShape(shapes, raw).handler(ctx, raw)
		}})
}

// pickShape chooses the shape a params object is meant for (see
// RegisterShapes). Params that are not an object go to the first shape,
// whose decoder says what is wrong with them.
func pickShape(shapes []Shape, raw json.RawMessage) Shape {
	var keys map[string]json.RawMessage
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || json.Unmarshal(raw, &keys) != nil || len(keys) == 0 {
		return shapes[0]
	}
	best, bestN := 0, -1
	for i, sh := range shapes {
		n := 0
		for k := range keys {
			if sh.fields[k] {
				n++
			}
		}
		if n == len(keys) {
			return sh
		}
		if n > bestN {
			best, bestN = i, n
		}
	}
	return shapes[best]
}

// fieldSet is the set of JSON names of struct type t's fields, embedded
// structs flattened as encoding/json does.
func fieldSet(t reflect.Type) map[string]bool {
	out := map[string]bool{}
	for _, f := range jsonFields(t) {
		out[f.name] = true
	}
	return out
}
