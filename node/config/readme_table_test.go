package config_test

import (
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/hyphae-run/hyphae/node/config"
)

// yamlKeys lists every key a config file may hold, dotted (runner.python),
// from the yaml tags of t: a struct field is a section, anything else a key.
func yamlKeys(t reflect.Type, prefix string) []string {
	var out []string
	for i := range t.NumField() {
		f := t.Field(i)
		tag := strings.Split(f.Tag.Get("yaml"), ",")[0]
		if tag == "-" || tag == "" {
			continue
		}
		if f.Type.Kind() == reflect.Struct && f.Type.PkgPath() == t.PkgPath() {
			out = append(out, yamlKeys(f.Type, prefix+tag+".")...)
			continue
		}
		out = append(out, prefix+tag)
	}
	return out
}

var codeSpan = regexp.MustCompile("`([a-z_]+(\\.[a-z_]+)*)`")

// documentedKeys reads the keys named in the first column of the README's
// configuration table.
func documentedKeys(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, sec, ok := strings.Cut(string(b), "\n## Configuration\n")
	if !ok {
		t.Fatal("README.md has no ## Configuration section")
	}
	sec, _, _ = strings.Cut(sec, "\n## ")
	var keys []string
	for _, line := range strings.Split(sec, "\n") {
		cells := strings.Split(line, "|")
		if len(cells) < 3 || !strings.HasPrefix(line, "| `") {
			continue
		}
		for _, m := range codeSpan.FindAllStringSubmatch(cells[1], -1) {
			keys = append(keys, m[1])
		}
	}
	return keys
}

// The README's configuration table names every key of the config file,
// and nothing that is not one (runner.python and redis.databases were
// missing).
func TestReadmeConfigTableHasEveryKey(t *testing.T) {
	want := yamlKeys(reflect.TypeOf(config.Config{}), "")
	got := documentedKeys(t)
	for _, k := range want {
		if !slices.Contains(got, k) {
			t.Errorf("config key %s is missing from README.md's configuration table", k)
		}
	}
	for _, k := range got {
		if !slices.Contains(want, k) {
			t.Errorf("README.md's configuration table names %s, which is no config key", k)
		}
	}
}
