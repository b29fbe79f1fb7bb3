package identity

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/libp2p/go-libp2p/core/crypto"
)

func TestCreateLoadRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "data", KeyFileName)
	created, err := Create(path)
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	loaded, err := Load(path)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	if created.PeerID() != loaded.PeerID() {
		t.Fatalf("peer ID changed across load: %s != %s", created.PeerID(), loaded.PeerID())
	}
	if created.AgeRecipient() != loaded.AgeRecipient() {
		t.Fatalf("age recipient changed across load")
	}
	if !created.PrivKey().Equals(loaded.PrivKey()) {
		t.Fatalf("private key changed across load")
	}
	again, err := Load(path)
	if err != nil || again.PeerID() != created.PeerID() {
		t.Fatalf("second load: %v, %s", err, again.PeerID())
	}
}

func TestCreateRefusesOverwrite(t *testing.T) {
	path := filepath.Join(t.TempDir(), KeyFileName)
	first, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(path)
	_, err = Create(path)
	if !errors.Is(err, ErrExists) {
		t.Fatalf("second Create: got %v, want ErrExists", err)
	}
	if !strings.Contains(err.Error(), path) {
		t.Fatalf("error %q does not name the path", err)
	}
	after, _ := os.ReadFile(path)
	if string(before) != string(after) {
		t.Fatal("key file was modified")
	}
	if id, _ := Load(path); id.PeerID() != first.PeerID() {
		t.Fatal("key file now holds another key")
	}
}

func TestCreateFileMode(t *testing.T) {
	path := filepath.Join(t.TempDir(), KeyFileName)
	if _, err := Create(path); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if perm := st.Mode().Perm(); perm != 0o600 {
		t.Fatalf("mode %04o, want 0600", perm)
	}
	if err := CheckMode(path); err != nil {
		t.Fatalf("CheckMode: %v", err)
	}
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := CheckMode(path); !errors.Is(err, ErrInsecureMode) {
		t.Fatalf("CheckMode on 0644: %v", err)
	}
	if _, err := Load(path); err != nil {
		t.Fatalf("Load must accept loose perms: %v", err)
	}
}

func TestCreateFileFormat(t *testing.T) {
	path := filepath.Join(t.TempDir(), KeyFileName)
	id, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	want, _ := crypto.MarshalPrivateKey(id.PrivKey())
	if string(data) != string(want) || len(data) != 68 {
		t.Fatalf("file is %d bytes, not libp2p MarshalPrivateKey output", len(data))
	}
}

func TestLoadErrors(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "nope.key")
	if _, err := Load(missing); !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), missing) {
		t.Fatalf("missing: %v", err)
	}
	if err := CheckMode(missing); !errors.Is(err, ErrNotFound) {
		t.Fatalf("CheckMode missing: %v", err)
	}
	cases := map[string][]byte{
		"empty":    {},
		"garbage":  []byte("hello, this is not a key"),
		"huge":     make([]byte, maxKeyFileSize+1),
		"mismatch": mismatchedKey(t),
	}
	for name, data := range cases {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := Load(p); !errors.Is(err, ErrCorruptKey) {
			t.Errorf("%s: got %v, want ErrCorruptKey", name, err)
		}
	}
	p := filepath.Join(dir, "secp")
	if err := os.WriteFile(p, secp256k1Key(t), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(p); !errors.Is(err, ErrUnsupportedKey) {
		t.Errorf("secp256k1: got %v, want ErrUnsupportedKey", err)
	}
}

// mismatchedKey is an ed25519 key file whose public half is not its seed's.
func mismatchedKey(t *testing.T) []byte {
	a, _ := Generate()
	b, _ := Generate()
	ra, _ := a.PrivKey().Raw()
	rb, _ := b.PrivKey().Raw()
	copy(ra[32:], rb[32:])
	k, err := crypto.UnmarshalEd25519PrivateKey(ra)
	if err != nil {
		t.Fatal(err)
	}
	data, err := crypto.MarshalPrivateKey(k)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func secp256k1Key(t *testing.T) []byte {
	k, _, err := crypto.GenerateSecp256k1Key(nil)
	if err != nil {
		t.Fatal(err)
	}
	data, err := crypto.MarshalPrivateKey(k)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
