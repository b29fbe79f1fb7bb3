package api

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"
)

// MaxRequest bounds a request body.
const MaxRequest = 8 << 20

// Server serves a Table over a unix socket and optionally TCP.
type Server struct {
	table    *Table
	token    string
	log      *slog.Logger
	classify Classifier
	mux      *http.ServeMux
	page     Page // the dashboard at GET / (page.go); nil: 426
	// allowedHosts: Host names the TCP listener answers besides loopback
	// and its own address (host_guard.go).
	allowedHosts []string

	base   context.Context // stream requests run under it; cancelled late in Shutdown
	cancel context.CancelFunc

	mu        sync.Mutex
	servers   []*http.Server        // guarded by mu
	listeners []net.Listener        // raw unix listeners; guarded by mu
	conns     map[net.Conn]struct{} // streams and unsniffed connections; guarded by mu
	closing   bool                  // guarded by mu
	wg        sync.WaitGroup        // serving goroutines
	streams   sync.WaitGroup        // accept loops, sniffs and streams
}

// NewServer builds a server for table; token guards TCP.
func NewServer(table *Table, token string, classify Classifier, log *slog.Logger) *Server {
	s := &Server{table: table, token: token, log: log, classify: classify, mux: http.NewServeMux(),
		conns: map[net.Conn]struct{}{}}
	s.base, s.cancel = context.WithCancel(context.Background())
	// The seed coordinator's clients post to the root (COORDINATOR_URL is
	// http://127.0.0.1:9652) and open WebSockets there; /rpc is ours.
	for _, path := range rpcPaths {
		s.mux.HandleFunc("POST "+path, s.serveRPC)
		s.mux.HandleFunc("GET "+path, s.serveWS)
	}
	return s
}

// Handle registers a plain HTTP handler; open=true serves it on TCP without
// the token (health and metrics probes).
func (s *Server) Handle(pattern string, h http.Handler, open bool) {
	if !open {
		h = s.requireToken(h)
	}
	s.mux.Handle(pattern, h)
}

// ListenUnix serves on a unix socket at path (mode 0600), replacing a
// stale socket file left by a crashed agent. The socket speaks HTTP and
// plain JSON-RPC streams (see stream.go).
func (s *Server) ListenUnix(path string) error {
	return s.ListenUnixGroup(path, NoGroup)
}

// ListenUnixGroup is ListenUnix with the socket shared with group gid
// (socket_perm.go); NoGroup keeps it the owner's alone.
func (s *Server) ListenUnixGroup(path string, gid int) error {
	if c, err := net.DialTimeout("unix", path, 200*time.Millisecond); err == nil {
		c.Close()
		return fmt.Errorf("api: another agent is already serving %s", path)
	}
	_ = os.Remove(path)
	if err := shareDir(path, gid); err != nil {
		return err
	}
	l, err := net.Listen("unix", path)
	if err != nil {
		return fmt.Errorf("api: listen %s: %w", path, err)
	}
	if err := setSocketPerm(path, gid); err != nil {
		l.Close()
		return err
	}
	q := newConnQueue(l.Addr())
	s.serve(q, s.mux)
	s.mu.Lock()
	s.listeners = append(s.listeners, l)
	s.mu.Unlock()
	s.streams.Add(1)
	go s.acceptUnix(l, q)
	return nil
}

// ListenTCP serves on addr; every request except the open handlers needs
// "Authorization: Bearer <token>", and every request at all a Host that
// names this agent (host_guard.go). It returns the bound address.
func (s *Server) ListenTCP(addr string) (net.Addr, error) {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("api: listen %s: %w", addr, err)
	}
	host, _, _ := net.SplitHostPort(addr)
	s.serve(l, s.hostGuard(host, s.sessionGuard(s.tcpGuard(s.mux))))
	return l.Addr(), nil
}

func (s *Server) serve(l net.Listener, h http.Handler) {
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	s.mu.Lock()
	s.servers = append(s.servers, srv)
	s.mu.Unlock()
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		err := srv.Serve(l)
		if err != nil && !errors.Is(err, http.ErrServerClosed) && !errors.Is(err, net.ErrClosed) {
			s.log.Error("api: serve", "addr", l.Addr().String(), "err", err)
		}
	}()
}

// Shutdown stops serving, letting requests in flight finish until ctx is
// done; safe to call twice.
func (s *Server) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	servers, listeners := s.servers, s.listeners
	s.servers, s.listeners = nil, nil
	s.mu.Unlock()
	for _, l := range listeners {
		l.Close()
	}
	streamsDone := make(chan struct{})
	go func() { s.streams.Wait(); close(streamsDone) }()
	for _, srv := range servers {
		if err := srv.Shutdown(ctx); err != nil {
			_ = srv.Close()
		}
	}
	s.endStreams(ctx, streamsDone)
	<-streamsDone
	s.cancel()
	s.wg.Wait()
	return nil
}

type tcpKey struct{}

// tcpGuard marks requests as coming over TCP so requireToken applies.
func (s *Server) tcpGuard(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if isRPCPath(r.URL.Path) && !s.tokenOK(r) {
			http.Error(w, "401 unauthorized: send 'Authorization: Bearer <token>' with the token from <data_dir>/api.token", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), tcpKey{}, true)))
	})
}

func (s *Server) requireToken(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Context().Value(tcpKey{}) != nil && !s.tokenOK(r) {
			http.Error(w, "401 unauthorized", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	})
}

func (s *Server) tokenOK(r *http.Request) bool {
	got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok && isUpgrade(r) {
		// A browser's WebSocket cannot set headers: it may send the token
		// as ?token= on the upgrade request instead.
		got, ok = r.URL.Query().Get("token"), true
	}
	return ok && s.token != "" && subtle.ConstantTimeCompare([]byte(got), []byte(s.token)) == 1
}

// rpcPaths are where JSON-RPC is served: POST for one request (or a
// batch) per HTTP request, GET with an upgrade for a WebSocket.
var rpcPaths = []string{"/{$}", "/rpc"}

func isRPCPath(p string) bool { return p == "/" || p == "/rpc" }

type request struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params,omitempty"`
}

type response struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *Error          `json:"error,omitempty"`
}

func (s *Server) serveRPC(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, MaxRequest+1))
	w.Header().Set("Content-Type", "application/json")
	if err != nil || len(body) > MaxRequest {
		writeJSON(w, response{JSONRPC: "2.0", ID: json.RawMessage("null"),
			Error: Errorf(CodeInvalidRequest, "request body unreadable or over %d bytes", MaxRequest)})
		return
	}
	if isBatch(body) {
		if out := s.answerBatch(r.Context(), body); out != nil {
			_, _ = w.Write(out)
		} else {
			w.WriteHeader(http.StatusNoContent)
		}
		return
	}
	var req request
	if err := json.Unmarshal(body, &req); err != nil {
		writeJSON(w, response{JSONRPC: "2.0", ID: json.RawMessage("null"), Error: Errorf(CodeParse, "parse error: %v", err)})
		return
	}
	writeJSON(w, s.dispatch(r.Context(), &req))
}

func (s *Server) dispatch(ctx context.Context, req *request) response {
	resp := response{JSONRPC: "2.0", ID: req.ID}
	if resp.ID == nil {
		resp.ID = json.RawMessage("null")
	}
	if req.JSONRPC != "2.0" || req.Method == "" {
		resp.Error = Errorf(CodeInvalidRequest, `invalid request: want {"jsonrpc":"2.0","method":...}`)
		return resp
	}
	m, ok := s.table.Get(req.Method)
	if !ok {
		resp.Error = Errorf(CodeNoMethod, "method %q not found; rpc.discover lists the methods", req.Method)
		return resp
	}
	res, err := m.call(ctx, req.Params)
	if err != nil {
		resp.Error = toError(err, s.classify)
		return resp
	}
	b, err := json.Marshal(res)
	if err != nil {
		resp.Error = Errorf(CodeInternal, "encode result: %v", err)
		return resp
	}
	resp.Result = b
	return resp
}

func writeJSON(w http.ResponseWriter, v any) {
	_ = json.NewEncoder(w).Encode(v)
}

// call runs the handler, turning a panic into an internal error so one bad
// request cannot take the agent down.
func (m *Method) call(ctx context.Context, params json.RawMessage) (res any, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = Errorf(CodeInternal, "internal error in %s: %v", m.Name, r)
		}
	}()
	return m.Handler(ctx, params)
}
