package e2e

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// dashboardURL is a one-time login URL of a dashboard on loopback, as
// `hyphae ui --url` prints it.
var dashboardURL = regexp.MustCompile(`http://127\.0\.0\.1:[0-9]+/#login=[A-Za-z0-9_-]+`)

// `hyphae demo --keep` gives its first agent (alice) a TCP API on a free
// loopback port and prints a URL of her dashboard. A browser-like client
// (a cookie jar) that opens it gets the page and, doing what the page
// does with the URL's #login token, a session in which the page's calls
// answer as alice; the token then works no more.
func TestDemoKeepPrintsADashboardURLThatOpens(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	cmd := exec.Command(bin, "demo", "--keep")
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	out := &syncBuf{}
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGINT) // the demo removes its temp dir
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(time.Minute):
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-done
		}
	})
	eventually(t, 2*time.Minute, "the demo to keep its agents running", func() bool {
		return strings.Contains(out.String(), "keep running") && strings.Contains(out.String(), "another one:")
	})
	raw := dashboardURL.FindString(out.String())
	if raw == "" {
		t.Fatalf("demo --keep printed no dashboard URL (http://127.0.0.1:PORT/#login=…):\n%s", out)
	}
	socks, _ := filepath.Glob(filepath.Join(tmp, "hyphae-demo-*", "alice", "hyphae.sock"))
	if len(socks) != 1 {
		t.Fatalf("no socket of alice's under %s: %v", tmp, socks)
	}
	alice := filepath.Dir(socks[0])
	var info struct {
		PeerID string `json:"peer_id"`
		API    string `json:"api"`
	}
	decode(t, hy(t, "info", "--json", "--data-dir", alice), &info)
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	if u.Host != info.API {
		t.Errorf("the URL opens %s; alice's TCP API is %q", u.Host, info.API)
	}
	token, _ := strings.CutPrefix(u.Fragment, "login=")

	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	c := &http.Client{Jar: jar, Timeout: 10 * time.Second} // follows redirects, keeps cookies
	base := "http://" + u.Host
	do := func(method, path, body string, hdr map[string]string) (int, string) {
		t.Helper()
		req, err := http.NewRequest(method, base+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}

	// The URL as a browser opens it (the #fragment stays in the browser).
	resp, err := c.Get(raw)
	if err != nil {
		t.Fatalf("GET %s: %v", raw, err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(page), "<title>Hyphae</title>") ||
		!strings.Contains(string(page), "/ui/assets/app.js") {
		t.Fatalf("GET %s: %d, not the dashboard page: %.300s", raw, resp.StatusCode, page)
	}
	// What the page does with #login=TOKEN (assets/app.js): trade it for
	// a session cookie, then call the API in that session.
	json1 := map[string]string{"Content-Type": "application/json", "Origin": base}
	code, body := do("POST", "/ui/login", `{"token":"`+token+`"}`, json1)
	var login struct {
		Auth string `json:"auth"`
		CSRF string `json:"csrf"`
	}
	_ = json.Unmarshal([]byte(body), &login)
	if code != http.StatusOK || login.Auth != "session" || login.CSRF == "" {
		t.Fatalf("login with the URL's token: %d %s", code, body)
	}
	if code, body := do("GET", "/ui/session", "", nil); code != http.StatusOK || !strings.Contains(body, `"session"`) {
		t.Fatalf("the session after login: %d %s", code, body)
	}
	code, body = do("POST", "/rpc", `{"jsonrpc":"2.0","id":1,"method":"node.info"}`,
		map[string]string{"Content-Type": "application/json", "Origin": base, "X-Hyphae-CSRF": login.CSRF})
	if code != http.StatusOK || !strings.Contains(body, info.PeerID) {
		t.Fatalf("node.info in the dashboard's session: %d %.300s (want alice's peer ID %s)", code, body, info.PeerID)
	}
	if code, _ := do("GET", "/ui/assets/app.js", "", nil); code != http.StatusOK {
		t.Errorf("the page's script: %d", code)
	}
	// One time only.
	c.Jar, _ = cookiejar.New(nil)
	if code, body := do("POST", "/ui/login", `{"token":"`+token+`"}`, json1); code != http.StatusUnauthorized {
		t.Errorf("the URL's token used again: %d %s, want 401", code, body)
	}
}
