package node_test

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/hyphae-run/hyphae/node"
	"github.com/hyphae-run/hyphae/node/api"
)

// seedClient calls an agent's TCP API the way the seed coordinator's
// clients do: POST / with named params.
type seedClient struct {
	url, token string
}

func newSeedClient(t *testing.T, a *agent) *seedClient {
	t.Helper()
	token, err := node.ReadToken(a.dir)
	if err != nil {
		t.Fatal(err)
	}
	return &seedClient{url: "http://" + a.APIAddr() + "/", token: token}
}

// try calls method and returns its result or its error.
func (c *seedClient) try(t *testing.T, method string, params any) (json.RawMessage, *api.Error) {
	t.Helper()
	p, _ := json.Marshal(params)
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": json.RawMessage(p)})
	req, _ := http.NewRequest(http.MethodPost, c.url, bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+c.token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var r struct {
		Result json.RawMessage `json:"result"`
		Error  *api.Error      `json:"error"`
	}
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("%s: answer %s: %v", method, b, err)
	}
	return r.Result, r.Error
}

// call calls method, fails the test on an error and decodes the result
// strictly into out (a seed client's typed struct).
func (c *seedClient) call(t *testing.T, method string, params, out any) {
	t.Helper()
	res, e := c.try(t, method, params)
	if e != nil {
		t.Fatalf("%s %v: %v", method, params, e)
	}
	if out == nil {
		return
	}
	dec := json.NewDecoder(bytes.NewReader(res))
	if err := dec.Decode(out); err != nil {
		t.Fatalf("%s: result %s does not decode into %T: %v", method, res, out, err)
	}
}

// The seed's models, typed as a seed client types them.
type (
	seedActor struct {
		ID        uint32   `json:"id"`
		Pubkey    string   `json:"pubkey"`
		Address   []string `json:"address"`
		CreatedAt int64    `json:"created_at"`
		UpdatedAt int64    `json:"updated_at"`
	}
	seedContext struct {
		ID        uint32   `json:"id"`
		Admins    []uint32 `json:"admins"`
		Readers   []uint32 `json:"readers"`
		Executors []uint32 `json:"executors"`
	}
	seedRunner struct {
		ID     uint32 `json:"id"`
		Pubkey string `json:"pubkey"`
		Topic  string `json:"topic"`
		Local  bool   `json:"local"`
	}
	seedJob struct {
		ID            uint32            `json:"id"`
		CallerID      uint32            `json:"caller_id"`
		ContextID     uint32            `json:"context_id"`
		Script        string            `json:"script"`
		ScriptType    string            `json:"script_type"`
		Timeout       uint32            `json:"timeout"`
		Retries       uint8             `json:"retries"`
		EnvVars       map[string]string `json:"env_vars"`
		Result        map[string]string `json:"result"`
		Prerequisites []string          `json:"prerequisites"`
		Dependends    []uint32          `json:"dependends"`
		Status        string            `json:"status"`
	}
	seedMessage struct {
		ID                uint32    `json:"id"`
		CallerID          uint32    `json:"caller_id"`
		ContextID         uint32    `json:"context_id"`
		MessageType       string    `json:"message_type"`
		MessageFormatType string    `json:"message_format_type"`
		Timeout           uint32    `json:"timeout"`
		Job               []seedJob `json:"job"`
		Status            string    `json:"status"`
	}
	seedFlow struct {
		ID        uint32            `json:"id"`
		CallerID  uint32            `json:"caller_id"`
		ContextID uint32            `json:"context_id"`
		Jobs      []uint32          `json:"jobs"`
		Result    map[string]string `json:"result"`
		Status    string            `json:"status"`
	}
)

// Every <object>.create and .load takes the seed coordinator's named
// params at POST /, keeps the ids the caller chose, and answers in the
// seed's field names with natural JSON types that typed decoders read;
// an actor's hex ed25519 key becomes its peer ID.
func TestSeedCoordinatorCreatesAndLoads(t *testing.T) {
	t.Parallel()
	a := startAgent(t, agentOpts{tcpAPI: true})
	c := newSeedClient(t, a)
	pub, _, _ := ed25519.GenerateKey(rand.Reader)
	lpub, _ := crypto.UnmarshalEd25519PublicKey(pub)
	wantPeer, _ := peer.IDFromPublicKey(lpub)

	var act seedActor
	c.call(t, "actor.create", map[string]any{"actor": map[string]any{"id": 12, "pubkey": hex.EncodeToString(pub),
		"address": []string{"/ip4/10.0.0.1/tcp/4001"}}}, &act)
	if act.ID != 12 || act.Pubkey != wantPeer.String() || len(act.Address) != 1 {
		t.Fatalf("actor.create: %+v, want id 12, pubkey %s", act, wantPeer)
	}
	c.call(t, "actor.load", map[string]any{"id": 12}, &act)
	if act.Pubkey != wantPeer.String() {
		t.Fatalf("actor.load: %+v", act)
	}
	var cx seedContext
	c.call(t, "context.create", map[string]any{"context": map[string]any{"id": 3, "admins": []int{12}, "executors": []int{12}}}, &cx)
	c.call(t, "context.load", map[string]any{"id": 3}, &cx)
	if cx.ID != 3 || !slices.Equal(cx.Admins, []uint32{12}) || !slices.Equal(cx.Executors, []uint32{12}) {
		t.Fatalf("context: %+v", cx)
	}
	var rn seedRunner
	c.call(t, "runner.create", map[string]any{"context_id": 3, "runner": map[string]any{"id": 20, "pubkey": a.peerID(),
		"topic": "runner20", "local": true}}, &rn)
	c.call(t, "runner.load", map[string]any{"context_id": 3, "id": 20}, &rn)
	if rn.ID != 20 || rn.Pubkey != a.peerID() || !rn.Local || rn.Topic != "runner20" {
		t.Fatalf("runner: %+v", rn)
	}
	var j seedJob
	c.call(t, "job.create", map[string]any{"context_id": 3, "job": map[string]any{"id": 2001, "caller_id": 12,
		"script": "print(1)", "script_type": "python", "timeout": 30, "retries": 2, "env_vars": map[string]string{"A": "b"}}}, &j)
	c.call(t, "job.load", map[string]any{"context_id": 3, "caller_id": 12, "id": 2001}, &j)
	if j.ID != 2001 || j.CallerID != 12 || j.ContextID != 3 || j.Timeout != 30 || j.Retries != 2 ||
		j.EnvVars["A"] != "b" || j.Status != "dispatched" || j.Prerequisites == nil || j.Dependends == nil {
		t.Fatalf("job: %+v", j)
	}
	var m seedMessage
	c.call(t, "message.create", map[string]any{"context_id": 3, "message": map[string]any{"id": 101, "caller_id": 12,
		"message_type": "job", "message_format_type": "md", "dst": a.peerID(), "timeout": 60,
		"job": []map[string]any{{"id": 2002, "caller_id": 12, "script": "print(2)", "script_type": "python", "timeout": 20}}}}, &m)
	c.call(t, "message.load", map[string]any{"context_id": 3, "caller_id": 12, "id": 101}, &m)
	if m.ID != 101 || m.MessageFormatType != "md" || m.Timeout != 60 || len(m.Job) != 1 || m.Job[0].ID != 2002 || m.Job[0].Timeout != 20 {
		t.Fatalf("message: %+v", m)
	}
	for _, bad := range []struct {
		method string
		params any
		field  string
	}{
		{"job.create", map[string]any{"context_id": 3, "job": map[string]any{"script": "x", "script_type": "python", "colour": 1}}, "colour"},
		{"job.load", map[string]any{"context_id": 3, "caller_id": 12, "id": 2001, "extra": true}, "extra"},
	} {
		_, e := c.try(t, bad.method, bad.params)
		if e == nil || e.Code != api.CodeInvalidParams || !strings.Contains(e.Message, "unknown field") || !strings.Contains(e.Message, bad.field) {
			t.Errorf("%s %v: %v, want unknown field %s", bad.method, bad.params, e, bad.field)
		}
	}
	// Both names of the call's context: told to give one (issue 39).
	if _, e := c.try(t, "flow.start", map[string]any{"context_id": 3, "id": 1, "context": 3}); e == nil ||
		e.Code != api.CodeInvalidParams || !strings.Contains(e.Message, "give context or context_id, not both") {
		t.Errorf("flow.start with context and context_id: %v, want to give one, not both", e)
	}
	if _, e := c.try(t, "job.create", map[string]any{"context_id": 3, "job": map[string]any{"id": 2001, "caller_id": 12,
		"script": "x", "script_type": "python"}}); e == nil || e.Code != api.CodeConflict {
		t.Fatalf("job 2001 created twice: %v", e)
	}
}

// An id a caller chose is never handed out by the agent afterwards: jobs
// the agent numbers itself (job.run, Hyphae's job.create) skip it.
func TestCallerChosenJobIDsDoNotCollide(t *testing.T) {
	t.Parallel()
	a := startAgent(t, agentOpts{tcpAPI: true})
	c := newSeedClient(t, a)
	a.call(t, "context.create", map[string]any{"id": 1}, nil)
	chosen := map[uint32]bool{}
	for _, id := range []uint32{1, 2, 3, 9} {
		var j seedJob
		c.call(t, "job.create", map[string]any{"context_id": 1, "job": map[string]any{"id": id, "script": "true", "script_type": "sh"}}, &j)
		chosen[j.ID] = true
	}
	for range 12 {
		var j struct {
			ID uint32 `json:"id"`
		}
		a.call(t, "job.create", map[string]any{"context": 1, "type": "sh", "script": "true"}, &j)
		if chosen[j.ID] {
			t.Fatalf("the agent numbered a job %d, an id a caller chose", j.ID)
		}
	}
}

// waitSeedFlow polls flow.load until flow id of context 1 ends.
func waitSeedFlow(t *testing.T, c *seedClient, id int) seedFlow {
	t.Helper()
	var f seedFlow
	eventually(t, time.Minute, "the flow to end", func() bool {
		c.call(t, "flow.load", map[string]any{"context_id": 1, "id": id}, &f)
		return f.Status == "finished" || f.Status == "error"
	})
	return f
}
