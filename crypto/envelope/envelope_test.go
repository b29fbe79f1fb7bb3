package envelope

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"
)

func TestSealRoundTrip(t *testing.T) {
	alice, bob := testIdentity(t, 1), testIdentity(t, 2)
	pt := []byte(`{"script":"echo hi"}`)
	env, err := Seal(alice, bob.PeerID(), TypeJob, 42, 3, pt)
	if err != nil {
		t.Fatal(err)
	}
	if env.Version != Version || env.From != alice.PeerID() || env.To != bob.PeerID() ||
		env.Context != 42 || env.Attempt != 3 || env.Type != TypeJob || env.ID == ([IDSize]byte{}) {
		t.Fatalf("Seal fields: %+v", env)
	}
	if d := time.Since(env.Time); d < 0 || d > time.Minute || env.Time.Nanosecond()%int(time.Millisecond) != 0 {
		t.Fatalf("Seal time %v", env.Time)
	}
	b := env.Marshal()
	if len(b) != env.Size() {
		t.Fatalf("Size %d, Marshal %d bytes", env.Size(), len(b))
	}
	v := &Verifier{Self: bob}
	got, err := v.Check(b, alice.PeerID())
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, env) {
		t.Fatalf("decoded\n%+v\nwant\n%+v", got, env)
	}
	opened, err := v.Open(got)
	if err != nil || !bytes.Equal(opened, pt) {
		t.Fatalf("Open: %q, %v", opened, err)
	}
}

func TestMarshalUnmarshalAllFields(t *testing.T) {
	alice, bob := testIdentity(t, 1), testIdentity(t, 2)
	env := &Envelope{
		Version: Version, Type: TypeMail, ID: [IDSize]byte{1, 2, 3, 15: 0xff},
		From: alice.PeerID(), To: bob.PeerID(), Context: 1<<64 - 1,
		Time: msTime(-1), Attempt: 1<<32 - 1, Payload: []byte{}, Sig: bytes.Repeat([]byte{9}, SigSize),
	}
	b := env.Marshal()
	got, err := Unmarshal(b, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, env) {
		t.Fatalf("got %+v\nwant %+v", got, env)
	}
	if !bytes.Equal(got.Marshal(), b) {
		t.Fatal("re-marshal differs")
	}
	b[len(b)-1] ^= 1
	if got.Sig[SigSize-1] != 9 {
		t.Fatal("Unmarshal result aliases its input")
	}
}

func TestReplayKey(t *testing.T) {
	alice, bob := testIdentity(t, 1), testIdentity(t, 2)
	env := sealAt(t, alice, bob, TypeAck, nil)
	env.ID = [IDSize]byte{0xab, 15: 0x01}
	want := alice.PeerID().String() + "/ab000000000000000000000000000001"
	if got := env.ReplayKey(); got != want {
		t.Fatalf("ReplayKey %s, want %s", got, want)
	}
	other := sealAt(t, alice, bob, TypeAck, nil)
	if other.ReplayKey() == sealAt(t, alice, bob, TypeAck, nil).ReplayKey() {
		t.Fatal("two Seals share a message id")
	}
}

func TestTypeNames(t *testing.T) {
	want := []string{"job", "result", "ack", "stop", "status", "error", "chat", "mail"}
	for i, name := range want {
		typ := Type(i + 1)
		if typ.String() != name || !typ.Valid() {
			t.Errorf("Type(%d) = %q", i+1, typ)
		}
		if p, err := ParseType(name); err != nil || p != typ {
			t.Errorf("ParseType(%q) = %v, %v", name, p, err)
		}
	}
	for _, bad := range []Type{0, 9, 255} {
		if bad.Valid() || bad.String() != fmt.Sprintf("type(%d)", bad) {
			t.Errorf("Type %d valid or named %q", uint8(bad), bad)
		}
	}
	if _, err := ParseType("presence"); !errors.Is(err, ErrUnknownType) {
		t.Errorf("ParseType(presence): %v", err)
	}
}

func TestSealRejects(t *testing.T) {
	alice := testIdentity(t, 1)
	if _, err := Seal(alice, alice.PeerID(), Type(0), 1, 0, nil); !errors.Is(err, ErrUnknownType) {
		t.Fatalf("type 0: %v", err)
	}
	if _, err := Seal(alice, "not-a-peer", TypeJob, 1, 0, nil); err == nil {
		t.Fatal("bad recipient accepted")
	}
}

func TestMarshalNeverEncodesOverlongFields(t *testing.T) {
	alice, bob := testIdentity(t, 1), testIdentity(t, 2)
	env := sealAt(t, alice, bob, TypeJob, []byte("x"))
	env.From = env.From + peer.ID(strings.Repeat("x", 300))
	if _, err := Unmarshal(env.Marshal(), 0); !errors.Is(err, ErrMalformed) {
		t.Fatalf("overlong from decoded: %v", err)
	}
	if err := env.Sign(alice); err != nil {
		t.Fatalf("Sign resets From: %v", err)
	}
	env.To = ""
	if err := env.Sign(alice); !errors.Is(err, ErrMalformed) {
		t.Fatalf("Sign with empty To: %v", err)
	}
}

func TestReason(t *testing.T) {
	if Reason(nil) != "" || Reason(errors.New("x")) != "internal" {
		t.Fatal("nil/other")
	}
	for _, r := range reasons {
		wrapped := fmt.Errorf("outer: %w", fmt.Errorf("inner: %w", r.err))
		if got := Reason(wrapped); got != r.reason {
			t.Errorf("Reason(%v) = %q, want %q", r.err, got, r.reason)
		}
	}
}
