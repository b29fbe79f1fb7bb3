package api

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

type echoParams struct {
	Say string `json:"say"`
}

type echoResult struct {
	Said string `json:"said"`
}

// testServer serves a table with echo, count (counts its calls) and hold
// (answers once release is closed) on a unix socket in a temp dir.
type testServer struct {
	*Server
	path    string
	calls   atomic.Int64
	entered chan struct{}
	release chan struct{}
}

func startServer(t *testing.T, path string) *testServer {
	t.Helper()
	if path == "" {
		d, err := os.MkdirTemp("", "api")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(d) })
		path = filepath.Join(d, "s.sock")
	}
	ts := &testServer{path: path, entered: make(chan struct{}, 1), release: make(chan struct{})}
	tbl := NewTable()
	Register(tbl, "echo", "says it back", func(_ context.Context, p echoParams) (echoResult, error) {
		return echoResult{Said: p.Say}, nil
	})
	Register(tbl, "count", "counts", func(_ context.Context, _ struct{}) (int64, error) {
		return ts.calls.Add(1), nil
	})
	Register(tbl, "hold", "waits for release", func(_ context.Context, _ struct{}) (string, error) {
		ts.entered <- struct{}{}
		<-ts.release
		return "released", nil
	})
	ts.Server = NewServer(tbl, "", nil, slog.New(slog.DiscardHandler))
	if err := ts.ListenUnix(path); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ts.Shutdown(context.Background()) })
	return ts
}

// rawConn is a client that writes lines to the socket and reads answers.
type rawConn struct {
	c net.Conn
	r *bufio.Reader
}

func dialRaw(t *testing.T, path string) *rawConn {
	t.Helper()
	c, err := net.Dial("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	_ = c.SetDeadline(time.Now().Add(time.Minute))
	return &rawConn{c: c, r: bufio.NewReader(c)}
}

func (r *rawConn) send(t *testing.T, s string) {
	t.Helper()
	if _, err := io.WriteString(r.c, s); err != nil {
		t.Fatal(err)
	}
}

func (r *rawConn) answer(t *testing.T) response {
	t.Helper()
	line, err := r.r.ReadBytes('\n')
	if err != nil {
		t.Fatalf("reading an answer: %v (got %q)", err, line)
	}
	var resp response
	if err := json.Unmarshal(line, &resp); err != nil {
		t.Fatalf("answer %q: %v", line, err)
	}
	return resp
}

// closed reports whether the server ended the connection.
func (r *rawConn) closed() bool {
	_, err := r.r.ReadByte()
	return errors.Is(err, io.EOF)
}

// Requests written back to back on one connection are answered in order,
// each with its own id; a notification runs but is not answered.
func TestStreamAnswersInOrder(t *testing.T) {
	ts := startServer(t, "")
	rc := dialRaw(t, ts.path)
	rc.send(t, `{"jsonrpc":"2.0","id":1,"method":"echo","params":{"say":"one"}}`+"\n"+
		`{"jsonrpc":"2.0","method":"count"}`+
		`{"jsonrpc":"2.0","id":"two","method":"echo","params":{"say":"two"}}`+"\n"+
		`{"jsonrpc":"2.0","id":3,"method":"count"}`)
	// a client that shuts its side after writing (nc -N) still gets every answer
	if err := rc.c.(*net.UnixConn).CloseWrite(); err != nil {
		t.Fatal(err)
	}
	for _, want := range []struct{ id, result string }{{"1", `{"said":"one"}`}, {`"two"`, `{"said":"two"}`}, {"3", "2"}} {
		resp := rc.answer(t)
		if string(resp.ID) != want.id || string(resp.Result) != want.result || resp.Error != nil {
			t.Fatalf("answer %+v, want id %s result %s", resp, want.id, want.result)
		}
	}
	if !rc.closed() {
		t.Fatal("more than the answers, or no end, after the client closed its side")
	}
}

// Bad input on a stream gets a JSON-RPC error. A request of the wrong shape
// leaves the connection usable; unparseable bytes and an oversized request
// end it.
func TestStreamBadInput(t *testing.T) {
	ts := startServer(t, "")
	rc := dialRaw(t, ts.path)
	rc.send(t, `{"jsonrpc":"2.0","id":1,"method":"nope"}`+"\n")
	if resp := rc.answer(t); resp.Error == nil || resp.Error.Code != CodeNoMethod {
		t.Fatalf("unknown method: %+v", resp)
	}
	rc.send(t, `{"jsonrpc":"2.0","id":2,"method":5}`+"\n")
	if resp := rc.answer(t); resp.Error == nil || resp.Error.Code != CodeInvalidRequest {
		t.Fatalf("method of the wrong type: %+v", resp)
	}
	rc.send(t, `{"jsonrpc":"2.0","id":3,"method":"echo","params":{"say":"still here"}}`)
	if resp := rc.answer(t); string(resp.Result) != `{"said":"still here"}` {
		t.Fatalf("after a bad request: %+v", resp)
	}
	rc.send(t, `{"jsonrpc":"2.0",,}`)
	if resp := rc.answer(t); resp.Error == nil || resp.Error.Code != CodeParse {
		t.Fatalf("syntax error: %+v", resp)
	}
	if !rc.closed() {
		t.Fatal("connection still open after a syntax error")
	}

	big := dialRaw(t, ts.path)
	go io.WriteString(big.c, `{"jsonrpc":"2.0","id":1,"method":"echo","params":{"say":"`+strings.Repeat("x", MaxRequest)+`"}}`)
	if resp := big.answer(t); resp.Error == nil || resp.Error.Code != CodeInvalidRequest || !strings.Contains(resp.Error.Message, "bytes") {
		t.Fatalf("oversized request: error %v, %d bytes of result", resp.Error, len(resp.Result))
	}
	if ts.calls.Load() != 0 {
		t.Fatal("a bad request ran a method")
	}
}

// The Client calls over a stream and keeps it; HTTP on the same socket
// still works for plain clients.
func TestClientStreamAndHTTP(t *testing.T) {
	ts := startServer(t, "")
	for _, c := range []*Client{NewUnixClient(ts.path), NewUnixHTTPClient(ts.path)} {
		for i := range 3 {
			var got echoResult
			if err := c.Call(context.Background(), "echo", echoParams{Say: "hi"}, &got); err != nil || got.Said != "hi" {
				t.Fatalf("call %d: %+v, %v", i, got, err)
			}
		}
		if err := c.Call(context.Background(), "nope", nil, nil); !isCode(err, CodeNoMethod) {
			t.Fatalf("unknown method: %v", err)
		}
		c.Close()
	}
}

func isCode(err error, code int) bool {
	var e *Error
	return errors.As(err, &e) && e.Code == code
}

// A Client whose kept connection died with the agent reconnects to the
// agent that replaced it, and a Client talking to an agent that speaks
// only HTTP on its socket falls back to HTTP.
func TestClientReconnectsAndFallsBack(t *testing.T) {
	ts := startServer(t, "")
	c := NewUnixClient(ts.path)
	defer c.Close()
	if err := c.Call(context.Background(), "count", nil, nil); err != nil {
		t.Fatal(err)
	}
	ts.Shutdown(context.Background())
	ts2 := startServer(t, ts.path)
	var n int64
	if err := c.Call(context.Background(), "count", nil, &n); err != nil || n != 1 {
		t.Fatalf("after the agent restarted: %d, %v", n, err)
	}
	ts2.Shutdown(context.Background())

	// an agent from before streams: the same methods, HTTP only
	os.Remove(ts.path)
	l, err := net.Listen("unix", ts.path)
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: ts2.mux}
	go srv.Serve(l)
	defer srv.Close()
	if err := c.Call(context.Background(), "count", nil, &n); err != nil || n != 2 {
		t.Fatalf("against an HTTP-only agent: %d, %v", n, err)
	}
	if c.pool.enabled() {
		t.Fatal("client still tries streams")
	}
}

// Shutdown lets a request being answered finish and deliver its answer,
// ends idle streams, and returns.
func TestShutdownFinishesStreams(t *testing.T) {
	ts := startServer(t, "")
	idle := dialRaw(t, ts.path)
	idle.send(t, `{"jsonrpc":"2.0","id":1,"method":"count"}`)
	idle.answer(t)
	busy := dialRaw(t, ts.path)
	busy.send(t, `{"jsonrpc":"2.0","id":7,"method":"hold"}`)
	<-ts.entered
	done := make(chan struct{})
	go func() { ts.Shutdown(context.Background()); close(done) }()
	if !idle.closed() {
		t.Fatal("idle stream not ended by Shutdown")
	}
	close(ts.release)
	if resp := busy.answer(t); string(resp.Result) != `"released"` {
		t.Fatalf("request in flight: %+v", resp)
	}
	<-done
	if _, err := net.Dial("unix", ts.path); err == nil {
		t.Fatal("socket still accepting after Shutdown")
	}
}

// A call given up (its context done) returns at once, and its connection
// is not reused: the late answer cannot be read as the next call's.
func TestClientGivesUpCleanly(t *testing.T) {
	ts := startServer(t, "")
	c := NewUnixClient(ts.path)
	defer c.Close()
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- c.Call(ctx, "hold", nil, nil) }()
	<-ts.entered
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("given up: %v", err)
	}
	close(ts.release)
	var got echoResult
	if err := c.Call(context.Background(), "echo", echoParams{Say: "next"}, &got); err != nil || got.Said != "next" {
		t.Fatalf("the call after: %+v, %v", got, err)
	}
}

// One Client used by many goroutines at once: every call gets its own
// answer, and no more than maxIdleStreams connections are kept after.
func TestClientConcurrentCalls(t *testing.T) {
	ts := startServer(t, "")
	c := NewUnixClient(ts.path)
	defer c.Close()
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for g := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 50 {
				say := fmt.Sprintf("%d/%d", g, i)
				var got echoResult
				if err := c.Call(context.Background(), "echo", echoParams{Say: say}, &got); err != nil || got.Said != say {
					errs <- fmt.Errorf("%s: got %q, %v", say, got.Said, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	c.pool.mu.Lock()
	idle := len(c.pool.idle)
	c.pool.mu.Unlock()
	if idle > maxIdleStreams {
		t.Fatalf("%d idle connections kept", idle)
	}
}
