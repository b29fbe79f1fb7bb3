package conformance

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/gorilla/websocket"
	"github.com/redis/go-redis/v9"
)

// rpcError is a JSON-RPC error object.
type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

func (e *rpcError) Error() string { return fmt.Sprintf("%d %s", e.Code, e.Message) }

var seq atomic.Int64

// post sends one JSON-RPC request to path ("/" is COORDINATOR_URL itself).
func post(t *testing.T, path, method string, params any) (json.RawMessage, *rpcError) {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": seq.Add(1), "method": method, "params": params})
	req, _ := http.NewRequest(http.MethodPost, target.url+path, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if target.token != "" {
		req.Header.Set("Authorization", "Bearer "+target.token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return answer(t, method, b)
}

func answer(t *testing.T, method string, b []byte) (json.RawMessage, *rpcError) {
	t.Helper()
	var r struct {
		JSONRPC string          `json:"jsonrpc"`
		Result  json.RawMessage `json:"result"`
		Error   *rpcError       `json:"error"`
	}
	if err := json.Unmarshal(b, &r); err != nil || r.JSONRPC != "2.0" {
		t.Fatalf("%s: not a JSON-RPC 2.0 answer: %s (%v)", method, b, err)
	}
	return r.Result, r.Error
}

// call posts to COORDINATOR_URL and decodes the result strictly into out,
// as a client with typed seed models does.
func call(t *testing.T, method string, params, out any) {
	t.Helper()
	res, e := post(t, "/", method, params)
	if e != nil {
		t.Fatalf("%s %v: %v", method, params, e)
	}
	decode(t, method, res, out)
}

func decode(t *testing.T, method string, res json.RawMessage, out any) {
	t.Helper()
	if out == nil {
		return
	}
	if err := json.Unmarshal(res, out); err != nil {
		t.Fatalf("%s: result %s does not decode into %T: %v", method, res, out, err)
	}
}

// wsDial opens a JSON-RPC WebSocket at COORDINATOR_URL.
func wsDial(t *testing.T) *websocket.Conn {
	t.Helper()
	h := http.Header{}
	if target.token != "" {
		h.Set("Authorization", "Bearer "+target.token)
	}
	c, _, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(target.url, "http")+"/", h)
	if err != nil {
		t.Fatalf("WebSocket at %s: %v", target.url, err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func wsCall(t *testing.T, c *websocket.Conn, method string, params, out any) *rpcError {
	t.Helper()
	id := seq.Add(1)
	msg, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	if err := c.WriteMessage(websocket.TextMessage, msg); err != nil {
		t.Fatal(err)
	}
	_, b, err := c.ReadMessage()
	if err != nil {
		t.Fatal(err)
	}
	res, e := answer(t, method, b)
	if e == nil {
		decode(t, method, res, out)
	}
	return e
}

// db is a raw Redis client on a context's DB (0: the global DB).
func db(t *testing.T, n int) *redis.Client {
	t.Helper()
	if target.redis == "" {
		t.Skip("CONFORMANCE_REDIS not set")
	}
	opt, err := redis.ParseURL(target.redis)
	if err != nil {
		t.Fatal(err)
	}
	opt.DB = n
	c := redis.NewClient(opt)
	t.Cleanup(func() { c.Close() })
	return c
}

// newContext creates context id (seed 002: context.create {context:{…}}).
func newContext(t *testing.T, id int) {
	t.Helper()
	call(t, "context.create", map[string]any{"context": map[string]any{"id": id, "admins": []int{1},
		"readers": []int{}, "executors": []int{1}}}, nil)
}
