package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hyphae-run/hyphae/cmd/hyphae/agent"
)

// hyInit runs `hyphae init args...` and returns its stdout and error.
func hyInit(t *testing.T, args ...string) (string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	g := &globals{agent: agent.New(), stdout: &out, stderr: &errOut}
	root := newRoot(g)
	root.SetArgs(append([]string{"init"}, args...))
	root.SetOut(&out)
	root.SetErr(&errOut)
	err := root.ExecuteContext(t.Context())
	return out.String(), err
}

var peerLine = regexp.MustCompile(`peer id:\s+(12D3KooW\w+)`)

// dirState is every file of dir with its bytes, mode and mtime.
func dirState(t *testing.T, dir string) map[string]string {
	t.Helper()
	st := map[string]string{}
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		p := filepath.Join(dir, e.Name())
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(p)
		st[e.Name()] = fi.Mode().String() + " " + fi.ModTime().Format(time.RFC3339Nano) + " " + string(b)
	}
	return st
}

// `hyphae init && hyphae run` on every start: init on a data dir that is
// initialised already succeeds, says so with the peer ID, and touches
// nothing: the key, the token and an edited config are kept as they are.
func TestInitTwiceKeepsTheDataDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "d")
	first, err := hyInit(t, "--data-dir", dir)
	if err != nil {
		t.Fatalf("first init: %v", err)
	}
	m := peerLine.FindStringSubmatch(first)
	if m == nil {
		t.Fatalf("first init printed no peer id:\n%s", first)
	}
	cfg := filepath.Join(dir, "hyphae.yaml")
	if err := os.WriteFile(cfg, []byte("roles: [runner]\n"), 0o600); err != nil { // the user's edit
		t.Fatal(err)
	}
	before := dirState(t, dir)
	time.Sleep(10 * time.Millisecond) // a rewrite would show in the mtimes

	for range 2 {
		again, err := hyInit(t, "--data-dir", dir)
		if err != nil {
			t.Fatalf("init on an initialised data dir: %v\n%s", err, again)
		}
		if !strings.Contains(again, "initialised already") || !strings.Contains(again, m[1]) || strings.Contains(again, "wrote") {
			t.Errorf("second init printed:\n%s\nwant that %s is initialised already, with peer id %s, and nothing written", again, dir, m[1])
		}
	}
	after := dirState(t, dir)
	for name, st := range before {
		if after[name] != st {
			t.Errorf("%s changed: %q, was %q", name, after[name], st)
		}
	}
	if len(after) != len(before) {
		t.Errorf("files after: %d, before: %d", len(after), len(before))
	}
}

// --swarm-key on a data dir initialised without one is refused (init does
// not edit a config it did not just write) and changes nothing; on one
// initialised with it, it is the same no-op as without.
func TestInitSwarmKeyOnInitialisedDir(t *testing.T) {
	plain := filepath.Join(t.TempDir(), "plain")
	if _, err := hyInit(t, "--data-dir", plain); err != nil {
		t.Fatal(err)
	}
	before := dirState(t, plain)
	if out, err := hyInit(t, "--data-dir", plain, "--swarm-key"); err == nil || !strings.Contains(err.Error(), "swarm") {
		t.Errorf("init --swarm-key on a data dir without one: %v\n%s\nwant it refused", err, out)
	}
	after := dirState(t, plain)
	if len(after) != len(before) {
		t.Errorf("refused init --swarm-key changed the data dir: %d files, was %d", len(after), len(before))
	}

	private := filepath.Join(t.TempDir(), "private")
	if _, err := hyInit(t, "--data-dir", private, "--swarm-key"); err != nil {
		t.Fatal(err)
	}
	if out, err := hyInit(t, "--data-dir", private, "--swarm-key"); err != nil || !strings.Contains(out, "initialised already") {
		t.Errorf("init --swarm-key again: %v\n%s", err, out)
	}
}

// A data dir whose actor key does not load is an error, and the key is
// not replaced.
func TestInitRefusesABrokenKey(t *testing.T) {
	dir := t.TempDir()
	key := filepath.Join(dir, "actor.key")
	if err := os.WriteFile(key, []byte("not a key"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := hyInit(t, "--data-dir", dir); err == nil {
		t.Fatal("init on a broken actor.key succeeded")
	}
	if b, _ := os.ReadFile(key); string(b) != "not a key" {
		t.Fatalf("actor.key was rewritten: %q", b)
	}
	if _, err := os.Stat(filepath.Join(dir, "api.token")); !os.IsNotExist(err) {
		t.Errorf("init on a broken key wrote api.token (%v)", err)
	}
}
