package api

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

const testToken = "t0ken"

// tcpServer serves ts's kind of table on loopback TCP with testToken.
func tcpServer(t *testing.T, tbl *Table) string {
	t.Helper()
	s := NewServer(tbl, testToken, nil, slog.New(slog.DiscardHandler))
	addr, err := s.ListenTCP("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// Calls still running (slow) are cancelled once this runs out.
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		s.Shutdown(ctx)
	})
	return addr.String()
}

func echoTable() *Table {
	tbl := NewTable()
	Register(tbl, "echo", "says it back", func(_ context.Context, p echoParams) (echoResult, error) {
		return echoResult{Said: p.Say}, nil
	})
	Register(tbl, "slow", "answers after its param's milliseconds", func(ctx context.Context, p struct {
		MS int `json:"ms"`
	}) (int, error) {
		select {
		case <-time.After(time.Duration(p.MS) * time.Millisecond):
		case <-ctx.Done():
		}
		return p.MS, nil
	})
	return tbl
}

func post(t *testing.T, url, token, body string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// The seed coordinator's clients post to the root: it answers as /rpc
// does, and the token guards both.
func TestRPCAtRootAndRPCPath(t *testing.T) {
	addr := tcpServer(t, echoTable())
	for _, path := range []string{"/", "/rpc"} {
		code, body := post(t, "http://"+addr+path, testToken, `{"jsonrpc":"2.0","id":7,"method":"echo","params":{"say":"hi"}}`)
		if code != 200 || !strings.Contains(body, `"said":"hi"`) || !strings.Contains(body, `"id":7`) {
			t.Errorf("POST %s: %d %s", path, code, body)
		}
		if code, _ := post(t, "http://"+addr+path, "", `{"jsonrpc":"2.0","id":1,"method":"echo"}`); code != http.StatusUnauthorized {
			t.Errorf("POST %s without token: %d, want 401", path, code)
		}
	}
	if code, _ := post(t, "http://"+addr+"/other", testToken, `{}`); code == 200 {
		t.Errorf("POST /other is served")
	}
}

func TestRPCBatch(t *testing.T) {
	addr := tcpServer(t, echoTable())
	_, body := post(t, "http://"+addr+"/", testToken,
		`[{"jsonrpc":"2.0","id":1,"method":"echo","params":{"say":"a"}},
		  {"jsonrpc":"2.0","method":"echo","params":{"say":"notified"}},
		  {"jsonrpc":"2.0","id":2,"method":"nope"}]`)
	var got []response
	if err := json.Unmarshal([]byte(body), &got); err != nil || len(got) != 2 {
		t.Fatalf("batch answer %s: %v", body, err)
	}
	if string(got[0].ID) != "1" || !strings.Contains(string(got[0].Result), `"a"`) || got[1].Error == nil || got[1].Error.Code != CodeNoMethod {
		t.Fatalf("batch answers %+v", got)
	}
	if code, _ := post(t, "http://"+addr+"/", testToken, `[{"jsonrpc":"2.0","method":"echo"}]`); code != http.StatusNoContent {
		t.Errorf("batch of notifications: %d, want 204", code)
	}
}

func dialWS(t *testing.T, url string, h http.Header) (*websocket.Conn, *http.Response, error) {
	t.Helper()
	d := websocket.Dialer{HandshakeTimeout: 10 * time.Second}
	c, resp, err := d.Dial(url, h)
	if c != nil {
		t.Cleanup(func() { c.Close() })
	}
	return c, resp, err
}

func wsCall(t *testing.T, c *websocket.Conn, msg string) response {
	t.Helper()
	if err := c.WriteMessage(websocket.TextMessage, []byte(msg)); err != nil {
		t.Fatal(err)
	}
	return wsRead(t, c)
}

func wsRead(t *testing.T, c *websocket.Conn) response {
	t.Helper()
	_ = c.SetReadDeadline(time.Now().Add(30 * time.Second))
	_, b, err := c.ReadMessage()
	if err != nil {
		t.Fatal(err)
	}
	var r response
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("answer %s: %v", b, err)
	}
	return r
}

// JSON-RPC over a WebSocket at / and /rpc: the token is required (header
// or ?token=), calls are answered by id, a slow call does not hold up a
// quick one behind it, and a notification gets no answer.
func TestRPCOverWebSocket(t *testing.T) {
	addr := tcpServer(t, echoTable())
	if _, resp, err := dialWS(t, "ws://"+addr+"/", nil); err == nil || resp == nil || resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("WebSocket without token: %v %v", resp, err)
	}
	for _, path := range []string{"/", "/rpc", "/?token=" + testToken} {
		h := http.Header{"Authorization": {"Bearer " + testToken}}
		if strings.Contains(path, "token=") {
			h = nil
		}
		c, _, err := dialWS(t, "ws://"+addr+path, h)
		if err != nil {
			t.Fatalf("dial %s: %v", path, err)
		}
		r := wsCall(t, c, `{"jsonrpc":"2.0","id":"a","method":"echo","params":{"say":"over ws"}}`)
		if string(r.ID) != `"a"` || !strings.Contains(string(r.Result), "over ws") {
			t.Fatalf("%s: %+v", path, r)
		}
	}
	c, _, _ := dialWS(t, "ws://"+addr+"/", http.Header{"Authorization": {"Bearer " + testToken}})
	for _, m := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"slow","params":{"ms":60000}}`,
		`{"jsonrpc":"2.0","method":"echo","params":{"say":"notification"}}`,
		`{"jsonrpc":"2.0","id":2,"method":"echo","params":{"say":"quick"}}`,
	} {
		if err := c.WriteMessage(websocket.TextMessage, []byte(m)); err != nil {
			t.Fatal(err)
		}
	}
	if r := wsRead(t, c); string(r.ID) != "2" {
		t.Fatalf("first answer %+v, want the quick call's (id 2)", r)
	}
}

// Shutdown ends open WebSockets (their requests are cancelled once its
// context is done) instead of waiting on them forever.
func TestShutdownEndsWebSockets(t *testing.T) {
	s := NewServer(echoTable(), testToken, nil, slog.New(slog.DiscardHandler))
	addr, err := s.ListenTCP("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	c, _, err := dialWS(t, "ws://"+addr.String()+"/", http.Header{"Authorization": {"Bearer " + testToken}})
	if err != nil {
		t.Fatal(err)
	}
	if r := wsCall(t, c, `{"jsonrpc":"2.0","id":1,"method":"echo","params":{"say":"x"}}`); r.Error != nil {
		t.Fatal(r.Error)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	done := make(chan struct{})
	go func() { s.Shutdown(ctx); close(done) }()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("Shutdown hangs on an open WebSocket")
	}
	_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, _, err := c.ReadMessage(); err == nil {
		t.Fatal("the WebSocket is still open after Shutdown")
	}
}
