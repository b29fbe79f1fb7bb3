package identity

import (
	"bytes"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

func TestSwarmKeyRoundTrip(t *testing.T) {
	data := GenerateSwarmKey()
	re := regexp.MustCompile(`^/key/swarm/psk/1\.0\.0/\n/base16/\n([0-9a-f]{64})\n$`)
	m := re.FindSubmatch(data)
	if m == nil {
		t.Fatalf("bad format: %q", data)
	}
	if bytes.Equal(data, GenerateSwarmKey()) {
		t.Fatal("two swarm keys are equal")
	}
	path := filepath.Join(t.TempDir(), "swarm.key")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	psk, err := LoadSwarmKey(path)
	if err != nil {
		t.Fatal(err)
	}
	if hex.EncodeToString(psk) != string(m[1]) {
		t.Fatalf("loaded %x, want %s", []byte(psk), m[1])
	}
}

func TestLoadSwarmKeyErrors(t *testing.T) {
	dir := t.TempDir()
	if _, err := LoadSwarmKey(filepath.Join(dir, "none")); !errors.Is(err, ErrNotFound) {
		t.Fatalf("missing: %v", err)
	}
	for name, data := range map[string]string{
		"empty":     "",
		"header":    "/key/swarm/psk/2.0.0/\n/base16/\n" + string(bytes.Repeat([]byte("a"), 64)),
		"short":     "/key/swarm/psk/1.0.0/\n/base16/\nabcd\n",
		"encoding":  "/key/swarm/psk/1.0.0/\n/base99/\nabcd\n",
		"not hex":   "/key/swarm/psk/1.0.0/\n/base16/\n" + string(bytes.Repeat([]byte("z"), 64)),
		"too large": string(make([]byte, maxSwarmKeyFileSize+1)),
	} {
		p := filepath.Join(dir, "k")
		if err := os.WriteFile(p, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := LoadSwarmKey(p); !errors.Is(err, ErrBadSwarmKey) {
			t.Errorf("%s: %v", name, err)
		}
	}
}
