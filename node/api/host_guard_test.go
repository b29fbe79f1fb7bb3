package api

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// hostServer serves echoTable with an open /info on loopback TCP and on a
// unix socket; allow is given to AllowHosts first.
func hostServer(t *testing.T, allow ...string) (tcp, sock string) {
	t.Helper()
	s := NewServer(echoTable(), testToken, nil, slog.New(slog.DiscardHandler))
	s.Handle("GET /info", http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, `{"peer_id":"secret-ish"}`)
	}), true)
	s.AllowHosts(allow...)
	sock = filepath.Join(t.TempDir(), "h.sock")
	if err := s.ListenUnix(sock); err != nil {
		t.Fatal(err)
	}
	addr, err := s.ListenTCP("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		s.Shutdown(ctx)
	})
	return addr.String(), sock
}

// hostDo sends method path to addr (over c) with Host host and the token.
func hostDo(t *testing.T, c *http.Client, addr, host, method, path, body string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(method, "http://"+addr+path, strings.NewReader(body))
	req.Host = host
	req.Header.Set("Authorization", "Bearer "+testToken)
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

const echoCall = `{"jsonrpc":"2.0","id":1,"method":"echo","params":{"say":"hi"}}`

// DNS rebinding: a page on a name its author points at 127.0.0.1 must not
// read the TCP API from a visitor's browser. A request whose Host is not
// loopback or the listener's own address is refused on every path, the
// WebSocket upgrade included; loopback names pass; the socket is not
// guarded.
func TestTCPRefusesForeignHost(t *testing.T) {
	addr, sock := hostServer(t)
	_, port, _ := net.SplitHostPort(addr)
	c := http.DefaultClient
	for _, host := range []string{"evil.example:" + port, "evil.example", "localhost.evil.example", "10.9.8.7:" + port} {
		for _, tc := range []struct{ method, path, body string }{
			{"GET", "/info", ""}, {"GET", "/", ""}, {"POST", "/rpc", echoCall}, {"POST", "/", echoCall},
			{"GET", "/health", ""}, {"GET", "/metrics", ""},
		} {
			code, body := hostDo(t, c, addr, host, tc.method, tc.path, tc.body)
			if code != http.StatusForbidden || !strings.Contains(body, "DNS rebinding") || strings.Contains(body, "secret-ish") {
				t.Errorf("Host %s: %s %s = %d %q; want 403 naming the DNS rebinding guard", host, tc.method, tc.path, code, body)
			}
		}
		_, resp, err := dialWS(t, "ws://"+addr+"/rpc", http.Header{"Authorization": {"Bearer " + testToken}, "Host": {host}})
		if err == nil || resp == nil || resp.StatusCode != http.StatusForbidden {
			t.Errorf("Host %s: WebSocket upgrade: %v %v; want 403", host, resp, err)
		}
	}
	for _, host := range []string{addr, "localhost:" + port, "LocalHost", "localhost.", "app.localhost:" + port,
		"127.0.0.1", "127.3.2.1:" + port, "[::1]:" + port, "[::1]", "[::ffff:127.0.0.1]:" + port} {
		if code, body := hostDo(t, c, addr, host, "GET", "/info", ""); code != http.StatusOK {
			t.Errorf("Host %s: GET /info = %d %q; want 200", host, code, body)
		}
		if code, body := hostDo(t, c, addr, host, "POST", "/rpc", echoCall); code != http.StatusOK || !strings.Contains(body, `"said":"hi"`) {
			t.Errorf("Host %s: POST /rpc = %d %q; want the echo", host, code, body)
		}
	}
	if _, _, err := dialWS(t, "ws://"+addr+"/rpc", http.Header{"Authorization": {"Bearer " + testToken}, "Host": {"localhost:" + port}}); err != nil {
		t.Errorf("WebSocket with Host localhost: %v", err)
	}
	unix := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, "unix", sock)
	}}}
	if code, body := hostDo(t, unix, "agent", "evil.example", "GET", "/info", ""); code != http.StatusOK {
		t.Errorf("socket, Host evil.example: GET /info = %d %q; want 200 (the socket is not guarded)", code, body)
	}
}

// AllowHosts adds names (a reverse proxy's, say) the TCP listener answers.
func TestTCPAllowHosts(t *testing.T) {
	addr, _ := hostServer(t, "Agent.LAN", "[fd00::5]")
	for host, want := range map[string]int{"agent.lan:443": 200, "agent.lan": 200, "[fd00::5]:9652": 200, "other.lan": 403} {
		if code, _ := hostDo(t, http.DefaultClient, addr, host, "GET", "/info", ""); code != want {
			t.Errorf("Host %s: %d, want %d", host, code, want)
		}
	}
}

// On a wildcard listen address the Host may be the address the
// connection came in on (http://10.1.2.3:9652 from another machine), and
// a listen address given as a name is allowed under that name.
func TestHostAllowedLocalAddr(t *testing.T) {
	req := func(host string) *http.Request {
		r, _ := http.NewRequest("GET", "http://x/info", nil)
		r.Host = host
		la := &net.TCPAddr{IP: net.ParseIP("10.1.2.3"), Port: 9652}
		return r.WithContext(context.WithValue(r.Context(), http.LocalAddrContextKey, la))
	}
	allowed := []string{normalHost("box.example")}
	for host, want := range map[string]bool{
		"10.1.2.3:9652": true, "10.1.2.3": true, "10.1.2.4:9652": false, "box.example:9652": true,
		"": true, "evil.example": false, "0.0.0.0:9652": false, "[::]:9652": false,
	} {
		if got := hostAllowed(req(host), allowed); got != want {
			t.Errorf("Host %q: allowed %v, want %v", host, got, want)
		}
	}
}
