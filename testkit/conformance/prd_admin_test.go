package conformance

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hyphae-run/hyphae/testkit/testnet"
)

// Seed 003 §10 (the runner PRD's admin and health endpoints): beside
// /health, /ready, /metrics and /info, POST /admin/drain begins a graceful
// drain (§8: stop acquiring new work, finish in-flight items, then exit)
// and POST /admin/reload hot-reloads the config where supported. Both
// change the agent, so they want the API token (DESIGN §8) and each test
// starts an agent of its own: draining the suite's agent would end it.

// ownAgent starts a redis-server and an agent on it whose config file is
// <data>/hyphae.yaml with yaml (written before it starts), and returns it
// with a channel that gets the agent's exit; it skips under
// CONFORMANCE_URL (another implementation cannot be started here).
func ownAgent(t *testing.T, name, yaml string) (*agent, <-chan error) {
	t.Helper()
	if builtBin == "" {
		t.Skip("the admin tests start an agent of this project; CONFORMANCE_URL names another")
	}
	p := &procs{dir: t.TempDir()}
	t.Cleanup(p.stop)
	a := &agent{name: name, data: filepath.Join(p.dir, name)}
	var err error
	if a.peer, err = initAgent(builtBin, a.data); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(a.data, "hyphae.yaml"), []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	redisPort, apiPort := freePort(), freePort()
	if err := p.start(name+"-redis", "redis-server", "--port", redisPort, "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no"); err != nil {
		t.Fatalf("redis-server: %v", err)
	}
	a.redis, a.url = "redis://127.0.0.1:"+redisPort, "http://127.0.0.1:"+apiPort
	eventually(t, "redis-server to answer", func() bool { return a.db(t, 0).Ping(t.Context()).Err() == nil })
	// --redis-url is how seed 002 spells the coordinator's Redis flag.
	cmd := startProc(t, p.dir, name, builtBin, testnet.HostRunArgs("run", "--data-dir", a.data, "--redis-url", a.redis,
		"--api", "127.0.0.1:"+apiPort, "--listen", "/ip4/127.0.0.1/tcp/0", "--roles", "supervisor,runner")...)
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) })
	tok, err := os.ReadFile(filepath.Join(a.data, "api.token"))
	if err != nil {
		t.Fatal(err)
	}
	a.token = strings.TrimSpace(string(tok))
	if err := waitFor(func() bool { return len(exited) > 0 || a.answers() }); err != nil || len(exited) > 0 {
		t.Fatalf("%s did not answer (%v): see its log", name, err)
	}
	return a, exited
}

// admin posts to one of a's plain endpoints and decodes a JSON answer.
func (a *agent) admin(t *testing.T, method, path string, withToken bool) (int, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest(method, a.url+path, nil)
	if withToken {
		req.Header.Set("Authorization", "Bearer "+a.token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var v map[string]any
	if resp.StatusCode != http.StatusUnauthorized {
		if err := json.Unmarshal(b, &v); err != nil {
			t.Fatalf("%s %s: %d, not a JSON object: %s", method, path, resp.StatusCode, b)
		}
	}
	return resp.StatusCode, v
}

// strs reads a JSON list of strings.
func strs(v any) []string {
	l, _ := v.([]any)
	out := []string{}
	for _, s := range l {
		out = append(out, str(s))
	}
	return out
}

// Seed 003 §10: /admin/drain and /admin/reload are refused (401) without
// the token, and are POST endpoints beside the probes.
func TestAdminEndpointsWantToken(t *testing.T) {
	t.Parallel()
	a, _ := ownAgent(t, "guarded", "log: {level: info}\n")
	for _, path := range []string{"/admin/drain", "/admin/reload"} {
		if code, _ := a.admin(t, http.MethodPost, path, false); code != http.StatusUnauthorized {
			t.Errorf("POST %s without the token: %d, want 401", path, code)
		}
	}
	if code, v := a.admin(t, http.MethodGet, "/ready", false); code != http.StatusOK {
		t.Fatalf("a refused drain drained the agent: /ready %d %v", code, v)
	}
	if code, v := a.admin(t, http.MethodPost, "/admin/reload", true); code != http.StatusOK {
		t.Fatalf("POST /admin/reload with the token: %d %v, want 200", code, v)
	}
}

// Seed 003 §10 /admin/reload: the config file is read again; what can
// change while the agent runs is applied, the rest is named as needing a
// restart, and a file that does not load is refused with why while the
// agent keeps running on the config it has.
func TestAdminReload(t *testing.T) {
	t.Parallel()
	a, _ := ownAgent(t, "reload", "log: {level: info}\nrunner: {concurrency: 2}\n")
	file := filepath.Join(a.data, "hyphae.yaml")
	os.WriteFile(file, []byte("log: {level: debug}\nrunner: {concurrency: 3}\n"), 0o600)
	code, v := a.admin(t, http.MethodPost, "/admin/reload", true)
	if code != http.StatusOK {
		t.Fatalf("POST /admin/reload: %d %v", code, v)
	}
	if !slices.Contains(strs(v["applied"]), "log.level") {
		t.Errorf("log.level changed; reload answered %v, want it in applied", v)
	}
	if !slices.ContainsFunc(strs(v["restart"]), func(s string) bool { return strings.HasPrefix(s, "runner") }) {
		t.Errorf("runner.concurrency changed; reload answered %v, want runner in restart", v)
	}
	os.WriteFile(file, []byte("log: {level: debug}\nno_such_key: 1\n"), 0o600)
	code, v = a.admin(t, http.MethodPost, "/admin/reload", true)
	if code < 400 || code >= 500 || !strings.Contains(str(v["error"]), "no_such_key") {
		t.Errorf("a file with an unknown key: %d %v, want a 4xx naming the key", code, v)
	}
	if code, v := a.admin(t, http.MethodGet, "/health", false); code != http.StatusOK {
		t.Fatalf("after a refused reload /health %d %v", code, v)
	}
}

// Seed 003 §8, §10 /admin/drain: the answer says the agent drains; it takes
// no new work, /ready says not ready, the job running finishes, and the
// agent exits 0.
func TestAdminDrain(t *testing.T) {
	t.Parallel()
	a, exited := ownAgent(t, "drain", "log: {level: info}\n")
	gate := filepath.Join(t.TempDir(), "gate")
	call := func(method string, params any) *rpcError { return a.call(t, method, params, nil) }
	if e := call("context.create", map[string]any{"context": map[string]any{"id": 2, "admins": []int{1},
		"readers": []int{}, "executors": []int{1}}}); e != nil {
		t.Fatal(e)
	}
	script := "import os, time\nwhile not os.path.exists(" + pyQuote(gate) + "):\n    time.sleep(0.05)\nprint('done')"
	job := func(id int) map[string]any {
		return map[string]any{"job": map[string]any{"id": id, "caller_id": 1, "context_id": 2,
			"script": script, "script_type": "python", "timeout": 120}}
	}
	if e := call("job.run", job(1)); e != nil {
		t.Fatal(e)
	}
	c := a.db(t, 2)
	eventually(t, "job 1 to start", func() bool { return c.HGet(t.Context(), "job:1:1", "status").Val() == "started" })
	code, v := a.admin(t, http.MethodPost, "/admin/drain", true)
	if code != http.StatusOK || v["draining"] != true {
		t.Fatalf("POST /admin/drain: %d %v, want 200 {draining: true}", code, v)
	}
	if e := call("job.run", job(2)); e == nil {
		t.Error("a job.run while draining was taken")
	}
	if code, v := a.admin(t, http.MethodGet, "/ready", false); code != http.StatusServiceUnavailable {
		t.Errorf("/ready while draining: %d %v, want 503", code, v)
	}
	os.WriteFile(gate, nil, 0o600)
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("the drained agent exited: %v, want 0", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("the drained agent did not exit within a minute")
	}
	if st := c.HGet(t.Context(), "job:1:1", "status").Val(); st != "finished" {
		t.Errorf("the job running at the drain ended %q, want finished", st)
	}
}

// pyQuote is s as a Python string literal.
func pyQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
