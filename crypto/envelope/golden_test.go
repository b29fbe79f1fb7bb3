package envelope

import (
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestGoldenEnvelope decodes an envelope stored in the fuzz corpus, so any
// change to the wire format or the signed bytes breaks this test (bump
// Version instead).
func TestGoldenEnvelope(t *testing.T) {
	data, err := os.ReadFile("testdata/fuzz/FuzzCheck/valid_job")
	if err != nil {
		t.Fatal(err)
	}
	lit, ok := strings.CutPrefix(strings.TrimSpace(string(data)), "go test fuzz v1\n[]byte(")
	if !ok {
		t.Fatalf("unexpected corpus file format")
	}
	s, err := strconv.Unquote(strings.TrimSuffix(lit, ")"))
	if err != nil {
		t.Fatal(err)
	}
	alice, bob := testIdentity(t, 1), testIdentity(t, 2)
	v := verifierFor(bob)
	env, err := v.Check([]byte(s), alice.PeerID())
	if err != nil {
		t.Fatal(err)
	}
	if env.Type != TypeJob || env.Context != 7 || env.Attempt != 2 || !env.Time.Equal(fixedNow) || env.To != bob.PeerID() {
		t.Fatalf("fields: %+v", env)
	}
	pt, err := v.Open(env)
	if err != nil || string(pt) != `{"script":"echo hi","script_type":"sh"}` {
		t.Fatalf("Open: %q, %v", pt, err)
	}
}
