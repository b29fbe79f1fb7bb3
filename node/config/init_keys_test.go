package config_test

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/hyphae-run/hyphae/node"
	"github.com/hyphae-run/hyphae/node/config"
)

// keyLine is a key of the config text, set (`  listen: …`) or commented
// out with its default (`  # socket_group: ""`, the indent before the #);
// prose comments and examples (`#  v: [v, run, …]`) are not keys.
var keyLine = regexp.MustCompile(`^( *)(# )?([a-z_]+):(\s|$)`)

// fileKeys lists the dotted keys of a config text, set or commented out
// (commented says which were), by indentation.
func fileKeys(text string) (keys []string, commented map[string]bool) {
	type level struct {
		indent int
		key    string
	}
	var stack []level
	commented = map[string]bool{}
	for _, line := range strings.Split(text, "\n") {
		m := keyLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		indent := len(m[1])
		for len(stack) > 0 && stack[len(stack)-1].indent >= indent {
			stack = stack[:len(stack)-1]
		}
		path := m[3]
		for i := len(stack) - 1; i >= 0; i-- {
			path = stack[i].key + "." + path
		}
		stack = append(stack, level{indent, m[3]})
		keys = append(keys, path)
		if m[2] != "" {
			commented[path] = true
		}
	}
	return keys, commented
}

// writtenConfig is the hyphae.yaml `hyphae init` writes into a new data dir.
func writtenConfig(t *testing.T) (path, text string) {
	t.Helper()
	res, err := node.Init(t.TempDir()+"/d", false)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(res.Paths.Config)
	if err != nil {
		t.Fatal(err)
	}
	return res.Paths.Config, string(b)
}

// Every key of the README's configuration table is in the config `hyphae
// init` writes, set to its default or commented out with it, so the file
// shows what can be set; and the file still parses and validates, with the
// commented-out keys too once uncommented (they are real keys, spelt right).
func TestInitConfigHasEveryReadmeKey(t *testing.T) {
	path, text := writtenConfig(t)
	keys, commented := fileKeys(text)
	have := map[string]bool{}
	for _, k := range keys {
		have[k] = true
	}
	for _, k := range documentedKeys(t) {
		if !have[k] {
			t.Errorf("README.md's configuration table documents %s; the config hyphae init writes lacks it", k)
		}
	}
	if !have["runner.concurrency"] || !have["overlay.nat_port_map"] || !commented["bus.plain"] {
		t.Fatalf("fileKeys read %v (commented %v)", keys, commented)
	}

	c, err := config.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	c.Defaults()
	if err := c.Validate(); err != nil {
		t.Fatalf("the config hyphae init writes does not validate: %v", err)
	}

	uncommented := regexp.MustCompile(`(?m)^( *)# ([a-z_]+:(\s|$))`).ReplaceAllString(text, "$1$2")
	c, err = config.Parse([]byte(uncommented), "uncommented")
	if err != nil {
		t.Fatalf("with its commented-out keys set: %v\n%s", err, uncommented)
	}
	c.DataDir = t.TempDir() // the commented ~/.hyphae is the user's
	c.Defaults()
	if err := c.Validate(); err != nil {
		t.Fatalf("with its commented-out keys set, the config does not validate: %v", err)
	}
}
