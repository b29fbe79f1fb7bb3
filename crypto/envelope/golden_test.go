package envelope

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
)

var updateGolden = flag.Bool("update-golden", false, "rewrite testdata/fuzz/FuzzCheck/valid_job_pair")

// goldenPlaintext is the payload of both golden envelopes.
const goldenPlaintext = `{"script":"echo hi","script_type":"sh"}`

// goldens are envelopes from identity 1 to identity 2 stored in the fuzz
// corpus, with the stanza their payload must carry. valid_job predates
// hyphae-pair (a plain age X25519 stanza): it must keep opening.
var goldens = []struct{ file, stanza string }{
	{"testdata/fuzz/FuzzCheck/valid_job", "\n-> X25519 "},
	{"testdata/fuzz/FuzzCheck/valid_job_pair", "\n-> hyphae-pair "},
}

// TestGoldenEnvelope decodes, checks and opens the stored envelopes, so any
// change to the wire format, the signed bytes or the pairwise wrap-key
// derivation breaks this test (bump Version, or the stanza version,
// instead).
func TestGoldenEnvelope(t *testing.T) {
	alice, bob := testIdentity(t, 1), testIdentity(t, 2)
	if *updateGolden {
		writeCorpusFile(t, goldens[1].file, sealAt(t, alice, bob, TypeJob, []byte(goldenPlaintext)).Marshal())
	}
	v := verifierFor(bob)
	for _, g := range goldens {
		env, err := v.Check(readCorpusFile(t, g.file), alice.PeerID())
		if err != nil {
			t.Fatalf("%s: %v", g.file, err)
		}
		if env.Type != TypeJob || env.Context != 7 || env.Attempt != 2 || !env.Time.Equal(fixedNow) || env.To != bob.PeerID() {
			t.Fatalf("%s: fields: %+v", g.file, env)
		}
		if !bytes.Contains(env.Payload, []byte(g.stanza)) {
			t.Fatalf("%s: payload has no %q stanza", g.file, g.stanza)
		}
		pt, err := v.Open(env)
		if err != nil || string(pt) != goldenPlaintext {
			t.Fatalf("%s: Open: %q, %v", g.file, pt, err)
		}
	}
}

// readCorpusFile returns the one []byte value of a "go test fuzz v1" file.
func readCorpusFile(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lit, ok := strings.CutPrefix(strings.TrimSpace(string(data)), "go test fuzz v1\n[]byte(")
	if !ok {
		t.Fatalf("%s: unexpected corpus file format", path)
	}
	s, err := strconv.Unquote(strings.TrimSuffix(lit, ")"))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return []byte(s)
}

// writeCorpusFile stores b as a "go test fuzz v1" file.
func writeCorpusFile(t *testing.T, path string, b []byte) {
	t.Helper()
	data := fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n", b)
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}
