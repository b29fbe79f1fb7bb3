package conformance

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

// agentPeerID is the peer ID the agent under test gives on /info (seed
// 003 §10: build info and identity), or "" when it has no /info.
func agentPeerID(t *testing.T) string {
	t.Helper()
	resp, err := http.Get(target.url + "/info")
	if err != nil {
		return ""
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var info struct {
		PeerID string `json:"peer_id"`
	}
	_ = json.Unmarshal(b, &info)
	return info.PeerID
}

// Seed 001 Actor.address ("list<Address>"): an actor created with
// address [] loads back [], even when the agent knows where that actor's
// peer listens: the caller said it has none, and nothing is made up. The
// actor used is the agent's own peer, whose addresses it always knows.
func TestActorEmptyAddressKept(t *testing.T) {
	pub := agentPeerID(t)
	if pub == "" {
		t.Skip("the implementation gives no peer_id on /info: no actor whose addresses it knows")
	}
	var a Actor
	call(t, "actor.create", map[string]any{"actor": map[string]any{"pubkey": pub, "address": []string{}}}, &a)
	if a.Address == nil || len(a.Address) != 0 {
		t.Errorf("actor.create with address []: address %v", a.Address)
	}
	res, e := post(t, "/", "actor.load", map[string]any{"id": a.ID})
	if e != nil {
		t.Fatal(e)
	}
	var raw struct {
		Address json.RawMessage `json:"address"`
	}
	decode(t, "actor.load", res, &raw)
	if string(raw.Address) != "[]" {
		t.Errorf("actor %d created with address [] loads back address %s", a.ID, raw.Address)
	}
	if h := db(t, 0).HGet(t.Context(), "actor:"+str(a.ID), "address").Val(); h != "[]" {
		t.Errorf("actor:%d address in DB 0: %q, want []", a.ID, h)
	}
}

// Seed 000 §1 Runner: "type (v|python|osis|rust)". runner.create takes a
// runner of each type; a type outside the enum is refused naming it.
func TestRunnerCreateSeedTypes(t *testing.T) {
	// Context 3 is TestRunnerCreateAndLoad's (every context 2-15 has its
	// test); made here when that test did not run first.
	if n, _ := db(t, 3).Exists(t.Context(), "context:3").Result(); n == 0 {
		newContext(t, 3)
	}
	for i, typ := range []string{"v", "python", "osis", "rust"} {
		pub, _, _ := ed25519.GenerateKey(rand.Reader)
		id := 90 + i
		_, e := post(t, "/", "runner.create", map[string]any{"context_id": 3, "runner": map[string]any{"id": id,
			"pubkey": hex.EncodeToString(pub), "address": "mycelium://r" + typ, "topic": "runner" + str(id),
			"type": typ, "local": false}})
		if e != nil {
			t.Errorf("runner.create type %q: %v", typ, e)
			continue
		}
		var r Runner
		call(t, "runner.load", map[string]any{"context_id": 3, "id": id}, &r)
		if int(r.ID) != id || r.Topic != "runner"+str(id) {
			t.Errorf("runner.load of the %s runner: %+v", typ, r)
		}
	}
	pub, _, _ := ed25519.GenerateKey(rand.Reader)
	_, e := post(t, "/", "runner.create", map[string]any{"context_id": 3, "runner": map[string]any{"id": 99,
		"pubkey": hex.EncodeToString(pub), "type": "cobol"}})
	if e == nil || e.Code != -32602 || !strings.Contains(e.Message, "type") {
		t.Errorf("runner.create type cobol: %v, want -32602 naming type", e)
	}
}

// Seed 002 names a call's context context_id; this API also takes
// context. A call giving both is told so, not that one is unknown.
func TestContextAndContextIDTogether(t *testing.T) {
	for _, c := range []struct {
		method string
		params map[string]any
	}{
		{"job.load", map[string]any{"context": 4, "context_id": 4, "caller_id": 1, "id": 1}},
		{"job.create", map[string]any{"context": 4, "context_id": 4, "job": map[string]any{"id": 1, "script": "true", "script_type": "sh"}}},
		{"runner.load", map[string]any{"context": 3, "context_id": 3, "id": 20}},
		{"message.load", map[string]any{"context": 6, "context_id": 6, "caller_id": 1, "id": 1}},
	} {
		_, e := post(t, "/", c.method, c.params)
		if e == nil || e.Code != -32602 || !strings.Contains(e.Message, "not both") || strings.Contains(e.Message, "unknown field") {
			t.Errorf("%s with context and context_id: %v, want -32602 saying to give one, not both", c.method, e)
		}
	}
}
