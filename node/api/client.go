package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync/atomic"
	"syscall"
)

// ErrNoAgent: nothing is listening on the data dir's socket (or at the
// TCP address).
var ErrNoAgent = errors.New("no agent running")

// ErrSocketDenied: the socket (or its directory) is not this user's to
// use: the agent runs as another user and does not share it with a group
// this user is in.
var ErrSocketDenied = errors.New("permission denied")

// ErrUnauthorized: the TCP API refused the token (HTTP 401).
var ErrUnauthorized = errors.New("unauthorized")

// Client calls an agent's API over its unix socket or TCP.
type Client struct {
	base   string // http://unix or http://host:port
	token  string
	socket string
	http   *http.Client
	seq    atomic.Int64
	pool   *streams // JSON-RPC streams on the socket; nil on TCP
}

// NewUnixClient talks to the agent whose socket is at path: calls go over
// JSON-RPC streams it keeps open between calls (HTTP if the agent is older
// than streams), plain endpoints over HTTP.
func NewUnixClient(path string) *Client {
	tr := &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		return dialUnix(ctx, path)
	}}
	return &Client{base: "http://hyphae", socket: path, http: &http.Client{Transport: tr}, pool: &streams{path: path}}
}

// NewUnixHTTPClient is NewUnixClient posting every call over HTTP.
func NewUnixHTTPClient(path string) *Client {
	c := NewUnixClient(path)
	c.pool = nil
	return c
}

// Close drops the connections kept between calls; the Client still works.
func (c *Client) Close() {
	if c.pool != nil {
		c.pool.close()
	}
	c.http.CloseIdleConnections()
}

// NewTCPClient talks to addr (host:port) with a bearer token.
func NewTCPClient(addr, token string) *Client {
	return NewURLClient("http://"+addr, token)
}

// NewURLClient talks to the agent at base (http://host:port, or https://
// behind a proxy that terminates TLS) with a bearer token.
func NewURLClient(base, token string) *Client {
	return &Client{base: strings.TrimRight(base, "/"), token: token, http: &http.Client{}}
}

// Base is where the client sends HTTP requests: http://host:port, or
// http://hyphae on a unix socket.
func (c *Client) Base() string { return c.base }

// Call invokes method with params and decodes the result into out (may be nil).
func (c *Client) Call(ctx context.Context, method string, params, out any) error {
	if params == nil {
		params = struct{}{}
	}
	p, err := json.Marshal(params)
	if err != nil {
		return fmt.Errorf("api.Call %s: params: %w", method, err)
	}
	body, _ := json.Marshal(request{JSONRPC: "2.0", ID: json.RawMessage(fmt.Sprint(c.seq.Add(1))), Method: method, Params: p})
	r, err := c.rpc(ctx, body)
	if err != nil {
		return fmt.Errorf("api.Call %s: %w", method, err)
	}
	if r.Error != nil {
		return r.Error
	}
	if out != nil && len(r.Result) > 0 {
		if err := json.Unmarshal(r.Result, out); err != nil {
			return fmt.Errorf("api.Call %s: decode result: %w", method, err)
		}
	}
	return nil
}

// Get fetches a plain endpoint (e.g. /health) and returns status and body.
func (c *Client) Get(ctx context.Context, path string) (int, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base+path, nil)
	if err != nil {
		return 0, nil, err
	}
	c.auth(req)
	resp, err := c.http.Do(req)
	if err != nil {
		return 0, nil, c.connErr(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, b, err
}

// Stream opens a plain endpoint for reading (server-sent events).
func (c *Client) Stream(ctx context.Context, path string) (io.ReadCloser, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base+path, nil)
	if err != nil {
		return nil, err
	}
	c.auth(req)
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, c.connErr(err)
	}
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return nil, fmt.Errorf("%s: %s: %s", path, resp.Status, bytes.TrimSpace(b))
	}
	return resp.Body, nil
}

// rpc sends one encoded request, on a stream when it can, and returns
// the response.
func (c *Client) rpc(ctx context.Context, body []byte) (*response, error) {
	if c.pool != nil && c.pool.enabled() {
		r, err := c.pool.call(ctx, body)
		if !errors.Is(err, errHTTPOnly) {
			return r, c.connErr(err)
		}
	}
	b, err := c.post(ctx, "/rpc", body)
	if err != nil {
		return nil, err
	}
	var r response
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("bad response: %w", err)
	}
	return &r, nil
}

func (c *Client) post(ctx context.Context, path string, body []byte) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base+path, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	c.auth(req)
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, c.connErr(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if resp.StatusCode == http.StatusUnauthorized {
		return nil, fmt.Errorf("%w: %s refused the token (%s)", ErrUnauthorized, c.base, resp.Status)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("api: %s: %s", resp.Status, bytes.TrimSpace(b))
	}
	return b, err
}

func (c *Client) auth(req *http.Request) {
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
}

func (c *Client) connErr(err error) error {
	if err == nil {
		return nil
	}
	switch {
	case c.socket != "" && (errors.Is(err, os.ErrNotExist) || errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ENOENT)):
		return fmt.Errorf("%w on socket %s", ErrNoAgent, c.socket)
	case c.socket != "" && (errors.Is(err, syscall.EACCES) || errors.Is(err, syscall.EPERM)):
		return fmt.Errorf("%w on socket %s", ErrSocketDenied, c.socket)
	case c.socket == "" && errors.Is(err, syscall.ECONNREFUSED):
		return fmt.Errorf("%w at %s (connection refused)", ErrNoAgent, c.base)
	}
	return err
}
