package config

import (
	"errors"
	"fmt"
	"reflect"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/hyphae-run/hyphae/internal/suggest"
)

// unknownKeys lists the keys of doc that no field of Config takes, one error
// each, as the user wrote them: the key's dotted path (runner.concurrancy),
// its line, and the closest valid key at that place when it looks like a
// typo. yaml.v3's strict decoder says only "field concurrancy not found in
// type config.Runner"; Parse asks this first and keeps that as a backstop.
func unknownKeys(doc *yaml.Node, name string) error {
	var errs []error
	walkKeys(doc, reflect.TypeFor[Config](), "", name, &errs, 0)
	return errors.Join(errs...)
}

var unmarshalerType = reflect.TypeFor[yaml.Unmarshaler]()

// walkKeys checks n against t, the type it decodes into; path is the
// dotted key of n ("" at the top). What is not a mapping decoding into a
// struct or a map is left to the decoder, which reports its type errors.
func walkKeys(n *yaml.Node, t reflect.Type, path, name string, errs *[]error, depth int) {
	if n == nil || depth > 64 { // depth: aliases may make a cycle
		return
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if reflect.PointerTo(t).Implements(unmarshalerType) {
		return
	}
	switch n.Kind {
	case yaml.DocumentNode:
		for _, c := range n.Content {
			walkKeys(c, t, path, name, errs, depth+1)
		}
		return
	case yaml.AliasNode:
		walkKeys(n.Alias, t, path, name, errs, depth+1)
		return
	case yaml.MappingNode:
	default:
		return
	}
	switch t.Kind() {
	case reflect.Struct:
		fields, names := yamlFields(t)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k.Kind == yaml.ScalarNode && k.Value == "<<" && k.Tag == "!!merge" {
				walkKeys(v, t, path, name, errs, depth+1) // the merged mapping(s) hold this struct's keys
				continue
			}
			f, ok := fields[k.Value]
			if !ok {
				*errs = append(*errs, unknownKey(k, join(path, k.Value), path, names, name))
				continue
			}
			walkKeys(v, f.Type, join(path, k.Value), name, errs, depth+1)
		}
	case reflect.Map:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			walkKeys(v, t.Elem(), join(path, k.Value), name, errs, depth+1)
		}
	}
}

func unknownKey(k *yaml.Node, key, parent string, names []string, name string) error {
	if s := suggest.Closest(k.Value, names); s != "" {
		return fmt.Errorf("config %s: line %d: unknown key %q (did you mean %q?)", name, k.Line, key, join(parent, s))
	}
	where := "at the top"
	if parent != "" {
		where = "in " + parent
	}
	return fmt.Errorf("config %s: line %d: unknown key %q (%s: %s)", name, k.Line, key, where, strings.Join(names, ", "))
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// yamlFields are the keys of struct t as yaml.v3 decodes them: the yaml
// tag's name, else the lowercased field name; "-" and unexported fields
// are none, ",inline" structs lend theirs. names is their order in t.
func yamlFields(t reflect.Type) (map[string]reflect.StructField, []string) {
	fields := map[string]reflect.StructField{}
	var names []string
	var add func(t reflect.Type)
	add = func(t reflect.Type) {
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			tag, opts, _ := strings.Cut(f.Tag.Get("yaml"), ",")
			if tag == "-" {
				continue
			}
			if strings.Contains(","+opts+",", ",inline,") && f.Type.Kind() == reflect.Struct {
				add(f.Type)
				continue
			}
			if tag == "" {
				tag = strings.ToLower(f.Name)
			}
			if _, dup := fields[tag]; !dup {
				names = append(names, tag)
			}
			fields[tag] = f
		}
	}
	add(t)
	return fields, names
}
