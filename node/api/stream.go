package api

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"sync"
	"time"
)

// The unix socket speaks two protocols, told apart by a connection's first
// byte: '{' (or whitespace before it) opens a JSON-RPC stream, anything
// else is HTTP. On a stream, requests are JSON objects one after another
// and each is answered, in order, by one response object and a newline.
// A request without "id" is a notification and gets no answer. A syntax
// error is answered with a parse error and ends the connection; a request
// over MaxRequest bytes likewise.

// sniffTimeout bounds how long a new connection may stay silent before its
// first byte tells its protocol (the HTTP server's ReadHeaderTimeout).
const sniffTimeout = 10 * time.Second

// errTooLarge: a stream request ran over MaxRequest bytes.
var errTooLarge = errors.New("request over the size limit")

// acceptUnix accepts on l until it is closed, handing each connection to
// sniff.
func (s *Server) acceptUnix(l net.Listener, httpConns *connQueue) {
	defer s.streams.Done()
	for {
		c, err := l.Accept()
		if err != nil {
			if !errors.Is(err, net.ErrClosed) {
				s.log.Error("api: accept", "addr", l.Addr().String(), "err", err)
			}
			httpConns.Close()
			return
		}
		if !s.track(c) {
			c.Close()
			continue
		}
		s.streams.Add(1)
		go s.sniff(c, httpConns)
	}
}

// sniff reads a connection's first byte and serves it as a stream or passes
// it, with that byte, to the HTTP server.
func (s *Server) sniff(c net.Conn, httpConns *connQueue) {
	defer s.streams.Done()
	br := bufio.NewReader(c)
	_ = c.SetReadDeadline(time.Now().Add(sniffTimeout))
	first, err := br.Peek(1)
	_ = c.SetReadDeadline(time.Time{})
	if err != nil {
		s.untrack(c)
		c.Close()
		return
	}
	switch first[0] {
	case '{', ' ', '\t', '\r', '\n':
		s.serveStream(br, c)
		s.untrack(c)
		c.Close()
	default:
		s.untrack(c) // net/http tracks it from here on
		if !httpConns.push(&peekedConn{Conn: c, r: br}) {
			c.Close()
		}
	}
}

// serveStream answers requests read from r on w, one at a time, until r
// ends, sends something unreadable, or the server shuts down.
func (s *Server) serveStream(r io.Reader, w io.Writer) {
	in := &capReader{r: r}
	dec := json.NewDecoder(in)
	bw := bufio.NewWriter(w)
	for s.open() {
		in.left = MaxRequest
		var req request
		err := dec.Decode(&req)
		resp, ok, fatal := s.streamAnswer(&req, err, in.left < 0)
		if ok {
			if writeResponse(bw, &resp) != nil || bw.Flush() != nil {
				return
			}
		}
		if fatal {
			return
		}
	}
}

// streamAnswer turns one decoded request (or the error decoding it) into
// the response to write (ok false: none, a notification or a closed
// connection) and whether the connection must end.
func (s *Server) streamAnswer(req *request, err error, over bool) (resp response, ok, fatal bool) {
	null := json.RawMessage("null")
	var typeErr *json.UnmarshalTypeError
	switch {
	case over: // the read that ran over failed with errTooLarge
		return response{JSONRPC: "2.0", ID: null, Error: Errorf(CodeInvalidRequest, "request over %d bytes", MaxRequest)}, true, true
	case err == nil:
		resp = s.dispatch(s.base, req)
		return resp, req.ID != nil, false
	case errors.As(err, &typeErr):
		return response{JSONRPC: "2.0", ID: null, Error: Errorf(CodeInvalidRequest,
			`invalid request: want one object {"jsonrpc":"2.0","id":1,"method":...} per request (%v)`, err)}, true, false
	case errors.Is(err, io.EOF), errors.Is(err, net.ErrClosed), errors.Is(err, io.ErrUnexpectedEOF), isTimeout(err):
		return resp, false, true
	default:
		return response{JSONRPC: "2.0", ID: null, Error: Errorf(CodeParse, "parse error: %v", err)}, true, true
	}
}

// writeResponse writes resp and a newline. A result (compact, from
// json.Marshal) is copied as it is rather than re-encoded.
func writeResponse(w *bufio.Writer, resp *response) error {
	if resp.Error != nil || bytes.ContainsAny(resp.ID, " \t\r\n") {
		return json.NewEncoder(w).Encode(resp)
	}
	w.WriteString(`{"jsonrpc":"2.0","id":`)
	w.Write(resp.ID)
	w.WriteString(`,"result":`)
	w.Write(resp.Result)
	_, err := w.WriteString("}\n")
	return err
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// capReader fails a read once more than left bytes have been read since
// left was last set.
type capReader struct {
	r    io.Reader
	left int
}

func (c *capReader) Read(p []byte) (int, error) {
	if c.left < 0 {
		return 0, errTooLarge
	}
	n, err := c.r.Read(p)
	c.left -= n
	return n, err
}

// peekedConn is a connection whose first bytes sit in r.
type peekedConn struct {
	net.Conn
	r *bufio.Reader
}

func (p *peekedConn) Read(b []byte) (int, error) { return p.r.Read(b) }

// connQueue is the listener the HTTP server serves: connections sniff
// found to be HTTP.
type connQueue struct {
	addr   net.Addr
	conns  chan net.Conn
	closed chan struct{}
	once   sync.Once
}

func newConnQueue(addr net.Addr) *connQueue {
	return &connQueue{addr: addr, conns: make(chan net.Conn), closed: make(chan struct{})}
}

// push hands c to the HTTP server; false once the queue is closed.
func (q *connQueue) push(c net.Conn) bool {
	select {
	case q.conns <- c:
		return true
	case <-q.closed:
		return false
	}
}

func (q *connQueue) Accept() (net.Conn, error) {
	select {
	case c := <-q.conns:
		return c, nil
	case <-q.closed:
		return nil, net.ErrClosed
	}
}

func (q *connQueue) Close() error {
	q.once.Do(func() { close(q.closed) })
	return nil
}

func (q *connQueue) Addr() net.Addr { return q.addr }

// track remembers a stream (or not yet sniffed) connection so Shutdown can
// end it; false once shutting down.
func (s *Server) track(c net.Conn) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing {
		return false
	}
	s.conns[c] = struct{}{}
	return true
}

// open reports whether the server still takes requests on its streams.
func (s *Server) open() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return !s.closing
}

func (s *Server) untrack(c net.Conn) {
	s.mu.Lock()
	delete(s.conns, c)
	s.mu.Unlock()
}

// endStreams wakes every idle stream so it ends; a request being answered
// is finished first. Once ctx is done, requests still running are
// cancelled and their connections closed.
func (s *Server) endStreams(ctx context.Context, done <-chan struct{}) {
	s.mu.Lock()
	s.closing = true
	for c := range s.conns {
		_ = c.SetReadDeadline(time.Now())
	}
	s.mu.Unlock()
	select {
	case <-done:
		return
	case <-ctx.Done():
	}
	s.cancel()
	s.mu.Lock()
	for c := range s.conns {
		c.Close()
	}
	s.mu.Unlock()
}
