package cli

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/hyphae-run/hyphae/cmd/hyphae/agent"
	"github.com/hyphae-run/hyphae/node/api"
)

// --addr takes a URL or a bare host:port (as http); a unix:// address is
// a socket; anything else is a usage error naming the variable.
func TestDialAddr(t *testing.T) {
	for _, c := range []struct {
		addr, base string
		usage      bool
	}{
		{"http://127.0.0.1:9652", "http://127.0.0.1:9652", false},
		{"127.0.0.1:9652", "http://127.0.0.1:9652", false},
		{"localhost:9652", "http://localhost:9652", false},
		{"https://hyphae.example:443/", "https://hyphae.example:443", false},
		{"unix:///run/hyphae.sock", "http://hyphae", false},
		{"ftp://x:1", "", true},
		{"nonsense", "", true},
	} {
		g := &globals{agent: agent.New(), dataDir: t.TempDir(), remote: remote{addr: c.addr}}
		cl, err := g.dial()
		if c.usage {
			if err == nil || exitCodeOf(err) != ExitUsage {
				t.Errorf("--addr %q: %v; want a usage error", c.addr, err)
			}
			continue
		}
		if err != nil || cl.Base() != c.base {
			t.Errorf("--addr %q: base %q, %v; want %q", c.addr, baseOf(cl), err, c.base)
		}
	}
}

// A token file wins over HYPHAE_TOKEN, and is trimmed; an unreadable one
// is an error naming the variable.
func TestRemoteToken(t *testing.T) {
	t.Setenv(envToken, "from-env")
	r := remote{}
	if tok, _ := r.token(); tok != "from-env" {
		t.Fatalf("no file: token %q, want HYPHAE_TOKEN's", tok)
	}
	f := filepath.Join(t.TempDir(), "tok")
	if err := os.WriteFile(f, []byte("from-file\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r.tokenFile = f
	if tok, _ := r.token(); tok != "from-file" {
		t.Fatalf("with a file: token %q, want the file's, trimmed", tok)
	}
	r.tokenFile = f + ".missing"
	if _, err := r.token(); err == nil {
		t.Fatal("a missing token file: no error")
	}
}

func baseOf(c *api.Client) string {
	if c == nil {
		return ""
	}
	return c.Base()
}

func exitCodeOf(err error) int {
	if ee, ok := err.(*exitError); ok {
		return ee.code
	}
	return -1
}
