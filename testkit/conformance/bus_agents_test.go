package conformance

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/hyphae-run/hyphae/testkit/gobuild"
	"github.com/hyphae-run/hyphae/testkit/testnet"
)

// The bus tests (bus_test.go) need two agents, alice and bob, each with
// its own redis-server and data dir, on loopback with mDNS and port
// mapping off, paired as the README's two-machine section pairs them:
// bob bootstraps to alice; alice makes context 1 and grants bob executor
// in it; bob makes his own context 1 and records alice as its runner.
// A third identity, carol, is initialised but never run: a registered
// runner that is down, and a dst that cannot be reached. A fourth agent,
// dave, runs with no role anywhere: what he sends alice is refused.
// They start on first use, so the single-agent tests do not pay for them.

// agent is one agent the bus tests talk to as a seed client does.
type agent struct {
	name, url, token, redis, data, peer, p2p string
}

var bus struct {
	once       sync.Once
	err        error
	alice, bob agent
	dave       agent  // runs, bootstraps to alice, holds no role in her contexts
	carol      string // peer ID of an agent that never runs
	stop       func()
}

// busAgents starts alice and bob once per test binary, or skips when the
// suite is pointed at another implementation (it has one endpoint).
func busAgents(t *testing.T) (alice, bob *agent) {
	t.Helper()
	if os.Getenv("CONFORMANCE_URL") != "" {
		t.Skip("the bus tests start two agents of this project; CONFORMANCE_URL names one")
	}
	bus.once.Do(func() { bus.stop, bus.err = startBus() })
	if bus.err != nil {
		t.Fatalf("two agents: %v", bus.err)
	}
	return &bus.alice, &bus.bob
}

// stopBus ends the bus agents if they were started (TestMain calls it).
func stopBus() {
	if bus.stop != nil {
		bus.stop()
	}
}

// procs are the processes a harness started, killed in reverse order.
type procs struct {
	dir  string
	list []*exec.Cmd
}

func (p *procs) start(log string, name string, args ...string) error {
	cmd := exec.Command(name, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	f, _ := os.Create(filepath.Join(p.dir, log+".log"))
	cmd.Stdout, cmd.Stderr = f, f
	if err := cmd.Start(); err != nil {
		return err
	}
	p.list = append(p.list, cmd)
	return nil
}

func (p *procs) stop() {
	for i := len(p.list) - 1; i >= 0; i-- {
		_ = syscall.Kill(-p.list[i].Process.Pid, syscall.SIGKILL)
		_ = p.list[i].Wait()
	}
	os.RemoveAll(p.dir)
}

func startBus() (func(), error) {
	dir, err := os.MkdirTemp("", "confbus")
	if err != nil {
		return nil, err
	}
	p := &procs{dir: dir}
	bin := builtBin
	if bin == "" {
		bin = filepath.Join(dir, "hyphae")
		if out, err := gobuild.Command("", "-o", bin, "github.com/hyphae-run/hyphae/cmd/hyphae").CombinedOutput(); err != nil {
			p.stop()
			return nil, fmt.Errorf("build hyphae: %v\n%s", err, out)
		}
	}
	bus.alice = agent{name: "alice"}
	bus.bob = agent{name: "bob"}
	bus.dave = agent{name: "dave"}
	if bus.carol, err = initAgent(bin, filepath.Join(dir, "carol")); err != nil {
		p.stop()
		return nil, err
	}
	if err := runAgent(p, bin, &bus.alice, ""); err != nil {
		p.stop()
		return nil, err
	}
	if err := runAgent(p, bin, &bus.bob, bus.alice.p2p+"/p2p/"+bus.alice.peer); err != nil {
		p.stop()
		return nil, err
	}
	if err := runAgent(p, bin, &bus.dave, bus.alice.p2p+"/p2p/"+bus.alice.peer); err != nil {
		p.stop()
		return nil, err
	}
	if err := pair(bin); err != nil {
		p.stop()
		return nil, err
	}
	return p.stop, nil
}

// initAgent runs hyphae init in data and returns its peer ID.
func initAgent(bin, data string) (string, error) {
	if out, err := exec.Command(bin, "init", "--data-dir", data).CombinedOutput(); err != nil {
		return "", fmt.Errorf("hyphae init: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "id", "--json", "--data-dir", data).Output()
	if err != nil {
		return "", fmt.Errorf("hyphae id: %w", err)
	}
	var id struct {
		PeerID string `json:"peer_id"`
	}
	if err := json.Unmarshal(out, &id); err != nil || id.PeerID == "" {
		return "", fmt.Errorf("hyphae id --json: %s (%v)", out, err)
	}
	return id.PeerID, nil
}

// runAgent starts a redis-server and an agent on it for a, bootstrapping
// to boot when it is not empty.
func runAgent(p *procs, bin string, a *agent, boot string) error {
	a.data = filepath.Join(p.dir, a.name)
	var err error
	if a.peer, err = initAgent(bin, a.data); err != nil {
		return err
	}
	redisPort, apiPort, p2pPort := freePort(), freePort(), freePort()
	if err := p.start(a.name+"-redis", "redis-server", "--port", redisPort, "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no"); err != nil {
		return fmt.Errorf("redis-server: %w", err)
	}
	a.redis = "redis://127.0.0.1:" + redisPort
	a.url = "http://127.0.0.1:" + apiPort
	a.p2p = "/ip4/127.0.0.1/tcp/" + p2pPort
	if err := waitFor(func() bool { c, err := net.Dial("tcp", "127.0.0.1:"+redisPort); ok(c); return err == nil }); err != nil {
		return fmt.Errorf("redis-server did not answer: %w", err)
	}
	args := []string{"run", "--data-dir", a.data, "--redis", a.redis, "--api", "127.0.0.1:" + apiPort,
		"--listen", a.p2p, "--roles", "supervisor,runner"}
	if boot != "" {
		args = append(args, "--bootstrap", boot)
	}
	if err := p.start(a.name, bin, testnet.HostRunArgs(args...)...); err != nil {
		return err
	}
	tok, err := os.ReadFile(filepath.Join(a.data, "api.token"))
	if err == nil {
		a.token = strings.TrimSpace(string(tok))
		err = waitFor(func() bool { return a.answers() })
	}
	if err == nil {
		err = onlyLocal(bin, a.data)
	}
	if err != nil {
		log, _ := os.ReadFile(filepath.Join(p.dir, a.name+".log"))
		return fmt.Errorf("%s: hyphae run: %v\n%s", a.name, err, log)
	}
	return nil
}

// pair does the README's two-machine steps with the CLI.
func pair(bin string) error {
	a, b := &bus.alice, &bus.bob
	steps := []struct {
		on   *agent
		args []string
	}{
		{a, []string{"context", "create", "--id", "1"}},
		{a, []string{"context", "grant", "1", "--actor", b.peer, "--role", "executor"}},
		{b, []string{"context", "create", "--id", "1"}},
		{b, []string{"runner", "create", "1", "--peer", a.peer}},
		// context 2 on bob: its only registered runner (carol) is down.
		{b, []string{"context", "create", "--id", "2"}},
		{b, []string{"runner", "create", "2", "--peer", bus.carol}},
		// dave's context 1 names alice as its runner; alice granted him nothing.
		{&bus.dave, []string{"context", "create", "--id", "1"}},
		{&bus.dave, []string{"runner", "create", "1", "--peer", a.peer}},
	}
	for _, s := range steps {
		args := append(append([]string{}, s.args...), "--data-dir", s.on.data)
		if out, err := exec.Command(bin, args...).CombinedOutput(); err != nil {
			return fmt.Errorf("%s: hyphae %s: %v\n%s", s.on.name, strings.Join(s.args, " "), err, out)
		}
	}
	return nil
}

// answers reports whether a answers JSON-RPC with its token.
func (a *agent) answers() bool {
	code, _, err := a.raw("/", "context.load", map[string]any{"id": 1}, true)
	return err == nil && code == http.StatusOK
}

// raw posts one JSON-RPC request, with the token or without, and returns
// the HTTP status and body.
func (a *agent) raw(path, method string, params any, withToken bool) (int, []byte, error) {
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": seq.Add(1), "method": method, "params": params})
	req, _ := http.NewRequest(http.MethodPost, a.url+path, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if withToken {
		req.Header.Set("Authorization", "Bearer "+a.token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, b, err
}

// call posts to a's COORDINATOR_URL with its token and decodes the result
// into out; it returns the JSON-RPC error, if any.
func (a *agent) call(t *testing.T, method string, params, out any) *rpcError {
	t.Helper()
	_, b, err := a.raw("/", method, params, true)
	if err != nil {
		t.Fatalf("%s %s: %v", a.name, method, err)
	}
	res, e := answer(t, method, b)
	if e == nil {
		decode(t, method, res, out)
	}
	return e
}

// db is a raw Redis client on one of a's context DBs.
func (a *agent) db(t *testing.T, n int) *redis.Client {
	t.Helper()
	opt, err := redis.ParseURL(a.redis)
	if err != nil {
		t.Fatal(err)
	}
	opt.DB = n
	c := redis.NewClient(opt)
	t.Cleanup(func() { c.Close() })
	return c
}
