package api

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"sync"
	"syscall"
	"time"
)

// maxIdleStreams bounds the connections a Client keeps open between calls.
const maxIdleStreams = 4

// streams is a Client's pool of JSON-RPC stream connections to a unix
// socket. An agent that answers a stream in HTTP (one from before streams)
// turns the pool off, and the Client posts over HTTP from then on.
type streams struct {
	path string

	mu   sync.Mutex
	idle []*streamConn // guarded by mu
	off  bool          // the agent speaks only HTTP; guarded by mu
}

type streamConn struct {
	c   net.Conn
	dec *json.Decoder
}

// errHTTPOnly: the agent answered a stream in HTTP.
var errHTTPOnly = errors.New("agent speaks only HTTP on its socket")

func (p *streams) enabled() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return !p.off
}

// call sends one request and returns the raw response. A connection kept
// from an earlier call that turns out closed (the agent restarted) is
// replaced once: a closed connection got nothing, so nothing ran twice.
func (p *streams) call(ctx context.Context, body []byte) (*response, error) {
	sc, reused, err := p.get(ctx)
	if err != nil {
		return nil, err
	}
	out, err := p.roundTrip(ctx, sc, body)
	if err != nil && reused && ctx.Err() == nil && closedBefore(err) {
		if sc, err = p.dial(ctx); err != nil {
			return nil, err
		}
		out, err = p.roundTrip(ctx, sc, body)
	}
	return out, err
}

// roundTrip writes body and reads one response on sc, keeping sc for the
// next call when both went well.
func (p *streams) roundTrip(ctx context.Context, sc *streamConn, body []byte) (*response, error) {
	deadline, _ := ctx.Deadline()
	_ = sc.c.SetDeadline(deadline)
	stop := context.AfterFunc(ctx, func() { _ = sc.c.SetDeadline(time.Unix(1, 0)) })
	out := new(response)
	_, err := sc.c.Write(append(body, '\n'))
	if err == nil {
		err = sc.dec.Decode(out)
	}
	if !stop() || err != nil {
		sc.c.Close()
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		var syn *json.SyntaxError
		if errors.As(err, &syn) && syn.Offset == 1 {
			p.mu.Lock()
			p.off = true
			p.mu.Unlock()
			return nil, errHTTPOnly
		}
		return nil, err
	}
	p.put(sc)
	return out, nil
}

// closedBefore: the error says the connection was closed before any
// answer came, as a kept connection to a restarted agent is.
func closedBefore(err error) bool {
	return errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, io.EOF)
}

func (p *streams) get(ctx context.Context) (*streamConn, bool, error) {
	p.mu.Lock()
	if n := len(p.idle); n > 0 {
		sc := p.idle[n-1]
		p.idle = p.idle[:n-1]
		p.mu.Unlock()
		return sc, true, nil
	}
	p.mu.Unlock()
	sc, err := p.dial(ctx)
	return sc, false, err
}

func (p *streams) dial(ctx context.Context) (*streamConn, error) {
	c, err := dialUnix(ctx, p.path)
	if err != nil {
		return nil, err
	}
	return &streamConn{c: c, dec: json.NewDecoder(c)}, nil
}

// dialUnix connects to the unix socket at path (streams and HTTP alike).
func dialUnix(ctx context.Context, path string) (net.Conn, error) {
	var d net.Dialer
	return d.DialContext(ctx, "unix", path)
}

func (p *streams) put(sc *streamConn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.idle) >= maxIdleStreams {
		sc.c.Close()
		return
	}
	p.idle = append(p.idle, sc)
}

// close drops the idle connections.
func (p *streams) close() {
	p.mu.Lock()
	idle := p.idle
	p.idle = nil
	p.mu.Unlock()
	for _, sc := range idle {
		sc.c.Close()
	}
}
