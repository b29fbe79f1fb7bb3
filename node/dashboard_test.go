package node_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/hyphae-run/hyphae/node"
	"github.com/hyphae-run/hyphae/node/api/wire"
)

// dashboardClient is a browser-like client of an agent's TCP API: a
// cookie jar, the CSRF value its login answered.
type dashboardClient struct {
	base string
	http *http.Client
	csrf string
}

func newDashboardClient(t *testing.T, addr string) *dashboardClient {
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	return &dashboardClient{base: "http://" + addr, http: &http.Client{Jar: jar, Timeout: 10 * time.Second}}
}

func (c *dashboardClient) do(t *testing.T, method, path, body string, hdr map[string]string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(method, c.base+path, strings.NewReader(body))
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func (c *dashboardClient) login(t *testing.T, token string) int {
	t.Helper()
	code, body := c.do(t, "POST", "/ui/login", `{"token":"`+token+`"}`, map[string]string{"Content-Type": "application/json"})
	var v struct{ CSRF string }
	_ = json.Unmarshal([]byte(body), &v)
	if code == http.StatusOK {
		c.csrf = v.CSRF
	}
	return code
}

func (c *dashboardClient) rpc(t *testing.T, method string, hdr map[string]string) (int, string) {
	t.Helper()
	return c.do(t, "POST", "/rpc", `{"jsonrpc":"2.0","id":1,"method":"`+method+`"}`, hdr)
}

func loginToken(t *testing.T, a *agent) wire.LoginView {
	t.Helper()
	var v wire.LoginView
	a.call(t, "ui.login_token", nil, &v)
	return v
}

func TestDashboardPageAndLogin(t *testing.T) {
	t.Parallel()
	a := startAgent(t, agentOpts{tcpAPI: true})
	c := newDashboardClient(t, a.APIAddr())
	// GET / is the page now (it was 426), with no token; it holds no data.
	code, body := c.do(t, "GET", "/", "", nil)
	if code != http.StatusOK || !strings.Contains(body, "/ui/assets/app.js") {
		t.Fatalf("GET /: %d %.200s", code, body)
	}
	if code, _ := c.do(t, "GET", "/ui/assets/app.js", "", nil); code != http.StatusOK {
		t.Fatalf("GET app.js: %d", code)
	}
	// Not logged in: the session says so and JSON-RPC wants the token.
	if code, _ := c.do(t, "GET", "/ui/session", "", nil); code != http.StatusUnauthorized {
		t.Fatalf("session before login: %d", code)
	}
	jsonBody := map[string]string{"Content-Type": "application/json"}
	if code, _ := c.rpc(t, "node.info", jsonBody); code != http.StatusUnauthorized {
		t.Fatalf("rpc before login: %d", code)
	}
	lv := loginToken(t, a)
	if !strings.HasPrefix(lv.URL, "http://"+a.APIAddr()+"/#login=") || !strings.HasSuffix(lv.URL, lv.Token) {
		t.Fatalf("login URL %q for API %s", lv.URL, a.APIAddr())
	}
	if code := c.login(t, lv.Token); code != http.StatusOK || c.csrf == "" {
		t.Fatalf("login: %d csrf %q", code, c.csrf)
	}
	// Logged in: a POST with the CSRF value and a JSON body reaches the method.
	withCSRF := map[string]string{"Content-Type": "application/json", "X-Hyphae-CSRF": c.csrf}
	if code, body := c.rpc(t, "node.info", withCSRF); code != http.StatusOK || !strings.Contains(body, a.peerID()) {
		t.Fatalf("rpc with session: %d %.200s", code, body)
	}
	// The token worked once: a second browser is refused with it.
	if code := newDashboardClient(t, a.APIAddr()).login(t, lv.Token); code != http.StatusUnauthorized {
		t.Fatalf("reused login token: %d, want 401", code)
	}
	if code := newDashboardClient(t, a.APIAddr()).login(t, "not-a-token"); code != http.StatusUnauthorized {
		t.Fatalf("unknown login token: %d, want 401", code)
	}
}

func TestDashboardSessionIsCSRFSafe(t *testing.T) {
	t.Parallel()
	a := startAgent(t, agentOpts{tcpAPI: true})
	c := newDashboardClient(t, a.APIAddr())
	if code := c.login(t, loginToken(t, a).Token); code != http.StatusOK {
		t.Fatalf("login: %d", code)
	}
	refused := map[string]map[string]string{
		"no CSRF header":  {"Content-Type": "application/json"},
		"wrong CSRF":      {"Content-Type": "application/json", "X-Hyphae-CSRF": "x" + c.csrf},
		"form body":       {"Content-Type": "text/plain", "X-Hyphae-CSRF": c.csrf},
		"another origin":  {"Content-Type": "application/json", "X-Hyphae-CSRF": c.csrf, "Origin": "http://evil.example"},
		"cross-site mark": {"Content-Type": "application/json", "X-Hyphae-CSRF": c.csrf, "Sec-Fetch-Site": "cross-site"},
	}
	for name, hdr := range refused {
		if code, _ := c.rpc(t, "node.info", hdr); code != http.StatusUnauthorized {
			t.Errorf("%s: %d, want 401", name, code)
		}
	}
	// A cookie never opens a WebSocket (a cross-site page could ask for one).
	hdr := http.Header{}
	for _, ck := range c.http.Jar.Cookies(mustURL(t, c.base)) {
		hdr.Add("Cookie", ck.Name+"="+ck.Value)
	}
	if _, resp, err := websocket.DefaultDialer.Dial("ws://"+a.APIAddr()+"/", hdr); err == nil || resp == nil || resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("WebSocket with a session cookie: %v %v, want 401", resp, err)
	}
	// The bearer token keeps working, for WebSocket too (seed clients).
	token, _ := node.ReadToken(a.dir)
	ws, _, err := websocket.DefaultDialer.Dial("ws://"+a.APIAddr()+"/", http.Header{"Authorization": {"Bearer " + token}})
	if err != nil {
		t.Fatalf("WebSocket with the token: %v", err)
	}
	defer ws.Close()
	if err := ws.WriteMessage(websocket.TextMessage, []byte(`{"jsonrpc":"2.0","id":7,"method":"node.info"}`)); err != nil {
		t.Fatal(err)
	}
	_ = ws.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, msg, err := ws.ReadMessage(); err != nil || !strings.Contains(string(msg), a.peerID()) {
		t.Fatalf("WebSocket answer: %s %v", msg, err)
	}
	// Logging out ends the session.
	if code, _ := c.do(t, "POST", "/ui/logout", "{}", map[string]string{"Content-Type": "application/json", "X-Hyphae-CSRF": c.csrf}); code != http.StatusOK {
		t.Fatalf("logout: %d", code)
	}
	if code, _ := c.rpc(t, "node.info", map[string]string{"Content-Type": "application/json", "X-Hyphae-CSRF": c.csrf}); code != http.StatusUnauthorized {
		t.Fatalf("rpc after logout: %d, want 401", code)
	}
}

func mustURL(t *testing.T, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}
