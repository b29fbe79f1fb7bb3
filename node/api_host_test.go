package node_test

import (
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

// A real agent's TCP API under DNS rebinding: a request naming another
// host is refused on the open endpoints and the dashboard, while the
// login URL `hyphae ui --url` prints (127.0.0.1) still opens the page.
func TestAgentTCPRefusesRebindingHost(t *testing.T) {
	t.Parallel()
	a := startAgent(t, agentOpts{tcpAPI: true})
	_, port, _ := net.SplitHostPort(a.APIAddr())
	get := func(rawURL, host string) (int, string) {
		t.Helper()
		req, _ := http.NewRequest("GET", rawURL, nil)
		if host != "" {
			req.Host = host
		}
		resp, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	base := "http://" + a.APIAddr()
	for _, path := range []string{"/info", "/metrics", "/health", "/ready", "/", "/ui/assets/app.js"} {
		if code, body := get(base+path, "rebind.evil.example:"+port); code != http.StatusForbidden || !strings.Contains(body, "DNS rebinding") {
			t.Errorf("GET %s with Host rebind.evil.example: %d %.120q; want 403", path, code, body)
		}
		if code, body := get(base+path, "localhost:"+port); code == http.StatusForbidden {
			t.Errorf("GET %s with Host localhost: 403 %.120q", path, body)
		}
	}
	v := loginToken(t, a)
	u, err := url.Parse(v.URL)
	if err != nil || u.Hostname() != "127.0.0.1" {
		t.Fatalf("login URL %q (%v): want one on 127.0.0.1", v.URL, err)
	}
	if code, body := get(v.URL, ""); code != http.StatusOK || !strings.Contains(body, "/ui/assets/app.js") {
		t.Fatalf("GET the login URL: %d %.200s", code, body)
	}
}
