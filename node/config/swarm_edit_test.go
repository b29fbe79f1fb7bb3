package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The config init writes gets the key's path in place of "", with its
// comment kept and the result still a valid config naming the key; a
// config that names a key already is not touched.
func TestNameSwarmKey(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "hyphae.yaml")
	if err := os.WriteFile(file, []byte(Example), 0o640); err != nil {
		t.Fatal(err)
	}
	key := filepath.Join(dir, "swarm $key")
	done, err := NameSwarmKey(file, key)
	if err != nil || !done {
		t.Fatalf("NameSwarmKey on init's config: %v, %v; want done", done, err)
	}
	b, _ := os.ReadFile(file)
	if !strings.Contains(string(b), `swarm_key: "`+key+`"            # path to a swarm key`) {
		t.Fatalf("the line was not rewritten in place:\n%s", b)
	}
	c, err := Parse(b, file)
	if err != nil || c.Overlay.SwarmKey != key {
		t.Fatalf("the edited config: %v, swarm_key %q; want %q", err, c.Overlay.SwarmKey, key)
	}
	if fi, _ := os.Stat(file); fi.Mode().Perm() != 0o640 {
		t.Fatalf("mode %v, want 0640 kept", fi.Mode().Perm())
	}
	if done, err := NameSwarmKey(file, "/other"); err != nil || done {
		t.Fatalf("NameSwarmKey on a config naming a key: %v, %v; want left alone", done, err)
	}
	if done, err := NameSwarmKey("", key); err != nil || done {
		t.Fatalf("no config file: %v, %v; want nothing done", done, err)
	}
}
