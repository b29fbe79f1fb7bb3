package api

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/gorilla/websocket"
)

// JSON-RPC over WebSocket, as the seed coordinator serves it beside HTTP on
// the same address: a GET with an upgrade on / or /rpc opens a connection
// on which each text message is a request (or a batch) and each answer is
// a message. Requests run concurrently (wsInFlight per connection), so a
// long job.wait does not hold up the calls behind it; answers carry their
// request's id. The token guards it on TCP as it guards POST.

// wsInFlight bounds the requests one WebSocket runs at a time.
const wsInFlight = 32

var upgrader = websocket.Upgrader{
	ReadBufferSize:  4096,
	WriteBufferSize: 4096,
	// The bearer token (or the unix socket's permissions) is the guard; a
	// page of another origin cannot know the token.
	CheckOrigin: func(*http.Request) bool { return true },
}

// isUpgrade reports a WebSocket upgrade request.
func isUpgrade(r *http.Request) bool {
	return strings.EqualFold(r.Header.Get("Upgrade"), "websocket")
}

func (s *Server) serveWS(w http.ResponseWriter, r *http.Request) {
	if !isUpgrade(r) {
		s.pageOr426(w, r)
		return
	}
	c, err := upgrader.Upgrade(w, r, nil)
	if err != nil {
		return // the upgrader has answered
	}
	if !s.track(c.NetConn()) {
		c.Close()
		return
	}
	s.streams.Add(1)
	defer s.streams.Done()
	defer s.untrack(c.NetConn())
	defer c.Close()
	c.SetReadLimit(MaxRequest)
	s.wsLoop(c)
}

// wsLoop reads requests until the peer goes, sends something that is not
// text, or the server shuts down (endStreams sets a read deadline); then
// it waits for the requests under way and says goodbye.
func (s *Server) wsLoop(c *websocket.Conn) {
	var wmu sync.Mutex
	write := func(b []byte) {
		wmu.Lock()
		defer wmu.Unlock()
		_ = c.SetWriteDeadline(time.Now().Add(30 * time.Second))
		_ = c.WriteMessage(websocket.TextMessage, b)
	}
	var wg sync.WaitGroup
	slots := make(chan struct{}, wsInFlight)
	defer func() {
		wg.Wait()
		wmu.Lock()
		_ = c.WriteControl(websocket.CloseMessage,
			websocket.FormatCloseMessage(websocket.CloseGoingAway, ""), time.Now().Add(time.Second))
		wmu.Unlock()
	}()
	for s.open() {
		kind, msg, err := c.ReadMessage()
		if err != nil {
			return
		}
		if kind != websocket.TextMessage {
			write(mustJSON(response{JSONRPC: "2.0", ID: json.RawMessage("null"),
				Error: Errorf(CodeInvalidRequest, "invalid request: send JSON-RPC as text messages")}))
			continue
		}
		slots <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-slots; wg.Done() }()
			if out := s.answerMessage(s.base, msg); out != nil {
				write(out)
			}
		}()
	}
}

// answerMessage answers one WebSocket message: a request (nil for a
// notification) or a batch.
func (s *Server) answerMessage(ctx context.Context, msg []byte) []byte {
	if isBatch(msg) {
		return s.answerBatch(ctx, msg)
	}
	var req request
	if err := json.Unmarshal(msg, &req); err != nil {
		return mustJSON(response{JSONRPC: "2.0", ID: json.RawMessage("null"), Error: Errorf(CodeParse, "parse error: %v", err)})
	}
	resp := s.dispatch(ctx, &req)
	if req.ID == nil {
		return nil
	}
	return mustJSON(resp)
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		b, _ = json.Marshal(response{JSONRPC: "2.0", ID: json.RawMessage("null"), Error: Errorf(CodeInternal, "encode: %v", err)})
	}
	return b
}
