package node_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/hyphae-run/hyphae/node"
	"github.com/hyphae-run/hyphae/node/api"
	"github.com/hyphae-run/hyphae/node/api/wire"
)

func rpcErr(t *testing.T, err error) *api.Error {
	t.Helper()
	var e *api.Error
	if !errors.As(err, &e) {
		t.Fatalf("want a JSON-RPC error, got %v", err)
	}
	return e
}

func TestAPIOverTCPNeedsToken(t *testing.T) {
	t.Parallel()
	a := startAgent(t, agentOpts{tcpAPI: true})
	token, err := node.ReadToken(a.dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, tok := range []string{"", "wrong-token"} {
		body := `{"jsonrpc":"2.0","id":1,"method":"context.create","params":{"id":5}}`
		req, _ := http.NewRequest(http.MethodPost, "http://"+a.APIAddr()+"/rpc", strings.NewReader(body))
		if tok != "" {
			req.Header.Set("Authorization", "Bearer "+tok)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Fatalf("token %q: status %d, want 401", tok, resp.StatusCode)
		}
	}
	// Nothing was done by the refused calls.
	var cs []wire.ContextView
	a.call(t, "context.list", nil, &cs)
	if len(cs) != 0 {
		t.Fatalf("refused call created contexts: %+v", cs)
	}
	c := api.NewTCPClient(a.APIAddr(), token)
	var info wire.InfoView
	if err := c.Call(context.Background(), "node.info", nil, &info); err != nil || info.PeerID != a.peerID() {
		t.Fatalf("with token: %+v %v", info, err)
	}
	for _, path := range []string{"/health", "/ready", "/metrics", "/info"} {
		code, _, err := api.NewTCPClient(a.APIAddr(), "").Get(context.Background(), path)
		if err != nil || code != http.StatusOK {
			t.Fatalf("%s without token: %d %v", path, code, err)
		}
	}
}

func TestAPIBadParamsNameTheField(t *testing.T) {
	t.Parallel()
	a := startAgent(t, agentOpts{})
	a.call(t, "context.create", map[string]any{"id": 1}, nil)
	cases := []struct {
		method string
		params any
		code   int
		field  string
	}{
		{"context.grant", map[string]any{"id": 1, "actor": a.peerID(), "role": "boss"}, api.CodeInvalidParams, "role"},
		{"context.grant", map[string]any{"id": 1, "actor": "not-a-peer", "role": "reader"}, api.CodeInvalidParams, "actor"},
		{"context.create", map[string]any{"id": "one"}, api.CodeInvalidParams, "id"},
		{"context.create", map[string]any{"idd": 2}, api.CodeInvalidParams, "idd"},
		{"job.run", map[string]any{"context": 1, "type": "sh"}, api.CodeInvalidParams, "script"},
		{"job.run", map[string]any{"context": 999, "type": "sh", "script": "true"}, api.CodeInvalidParams, "context"},
		{"job.run", map[string]any{"context": 1, "type": "sh", "script": "true", "wait": -1}, api.CodeInvalidParams, "wait"},
		{"job.create", map[string]any{"context": 1, "type": "sh", "script": "true", "wait": 5}, api.CodeInvalidParams, "wait"},
		{"job.load", map[string]any{"context": 1, "key": "nope"}, api.CodeInvalidParams, "key"},
		{"job.load", map[string]any{"context": 1, "key": "job:1:99"}, api.CodeNotFound, ""},
		{"context.create", map[string]any{"id": 1}, api.CodeConflict, ""},
		{"no.such.method", nil, api.CodeNoMethod, ""},
	}
	for _, tc := range cases {
		err := a.client.Call(context.Background(), tc.method, tc.params, nil)
		e := rpcErr(t, err)
		if e.Code != tc.code || !strings.Contains(e.Message, tc.field) {
			t.Errorf("%s %v: got %d %q, want code %d naming %q", tc.method, tc.params, e.Code, e.Message, tc.code, tc.field)
		}
	}
}

func TestAPIMalformedRequests(t *testing.T) {
	t.Parallel()
	a := startAgent(t, agentOpts{tcpAPI: true})
	token, _ := node.ReadToken(a.dir)
	for body, code := range map[string]int{
		`{not json`:                      api.CodeParse,
		`{"jsonrpc":"1.0","method":"x"}`: api.CodeInvalidRequest,
		`{"jsonrpc":"2.0","id":1,"method":"node.info","params":[1]}`: api.CodeInvalidParams,
	} {
		req, _ := http.NewRequest(http.MethodPost, "http://"+a.APIAddr()+"/rpc", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var r struct{ Error *api.Error }
		if err := json.Unmarshal(bytes.TrimSpace(b), &r); err != nil || r.Error == nil || r.Error.Code != code {
			t.Errorf("%s: got %s, want error code %d", body, b, code)
		}
	}
}

// The OpenRPC document lists exactly the served methods: everything it
// lists is served, and a name it does not list is not.
func TestOpenRPCListsExactlyServedMethods(t *testing.T) {
	t.Parallel()
	a := startAgent(t, agentOpts{})
	var doc struct {
		OpenRPC string `json:"openrpc"`
		Methods []struct {
			Name   string `json:"name"`
			Params []struct {
				Name string `json:"name"`
			} `json:"params"`
		} `json:"methods"`
	}
	a.call(t, "rpc.discover", nil, &doc)
	if doc.OpenRPC == "" || len(doc.Methods) < 25 {
		t.Fatalf("openrpc doc: %q with %d methods", doc.OpenRPC, len(doc.Methods))
	}
	names := map[string]bool{}
	for _, m := range doc.Methods {
		names[m.Name] = true
		err := a.client.Call(context.Background(), m.Name, map[string]any{"__probe__": 1}, nil)
		if e := rpcErr(t, err); e.Code == api.CodeNoMethod {
			t.Errorf("listed method %s is not served", m.Name)
		}
	}
	for _, want := range []string{"actor.create", "actor.load", "actor.list", "context.create", "context.load",
		"context.list", "context.grant", "context.revoke", "runner.create", "runner.load", "runner.list",
		"job.create", "job.run", "job.load", "job.status", "job.result", "job.logs", "job.stop", "job.list",
		"message.create", "message.load", "message.list", "peer.list", "node.info", "rpc.discover"} {
		if !names[want] {
			t.Errorf("method %s missing from rpc.discover", want)
		}
	}
	e := rpcErr(t, a.client.Call(context.Background(), "job.frobnicate", nil, nil))
	if e.Code != api.CodeNoMethod {
		t.Errorf("unlisted method: code %d", e.Code)
	}
}

// Node.RunJob is job.run for a program that embeds the agent: the same
// job, waited for, and the same named errors, without the API socket.
func TestRunJobInProcess(t *testing.T) {
	t.Parallel()
	a := startAgent(t, agentOpts{})
	a.call(t, "context.create", map[string]any{"id": 1}, nil)
	ctx := context.Background()
	j, err := a.RunJob(ctx, wire.JobRunParams{Context: 1, Type: "sh", Script: `echo "k=v" >> "$HYPHAE_RESULT"`, Wait: 60})
	if err != nil || j.Status != "finished" || j.Result["k"] != "v" {
		t.Fatalf("RunJob = %+v, %v; want finished with k=v", j, err)
	}
	var stored wire.JobView
	a.call(t, "job.load", map[string]any{"context": 1, "key": j.Key}, &stored)
	if stored.Status != "finished" {
		t.Fatalf("the API sees the job %q", stored.Status)
	}
	_, err = a.RunJob(ctx, wire.JobRunParams{Context: 1, Type: "sh"})
	if e := rpcErr(t, err); e.Code != api.CodeInvalidParams || !strings.Contains(e.Message, "script") {
		t.Fatalf("RunJob without a script: %v", err)
	}
}
