package conformance

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hyphae-run/hyphae/testkit/gobuild"
	"github.com/hyphae-run/hyphae/testkit/testnet"
)

// target is the implementation under test.
var target struct {
	url, token, redis string
	local             bool // its jobs run on this machine
}

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	defer stopBus()
	target.url = os.Getenv("CONFORMANCE_URL")
	target.token = os.Getenv("CONFORMANCE_TOKEN")
	target.redis = os.Getenv("CONFORMANCE_REDIS")
	target.local = os.Getenv("CONFORMANCE_LOCAL") == "1"
	if target.url != "" {
		return m.Run()
	}
	stop, err := startHyphae()
	if err != nil {
		fmt.Fprintln(os.Stderr, "conformance:", err)
		return 1
	}
	defer stop()
	return m.Run()
}

// builtBin is the hyphae binary startHyphae built, for the bus agents.
var builtBin string

// startHyphae builds the hyphae binary, starts a redis-server and an
// agent on it in a temp dir, and points target at them.
func startHyphae() (func(), error) {
	dir, err := os.MkdirTemp("", "conf")
	if err != nil {
		return nil, err
	}
	var procs []*exec.Cmd
	stop := func() {
		for i := len(procs) - 1; i >= 0; i-- {
			_ = syscall.Kill(-procs[i].Process.Pid, syscall.SIGKILL)
			_ = procs[i].Wait()
		}
		os.RemoveAll(dir)
	}
	bin := filepath.Join(dir, "hyphae")
	if out, err := gobuild.Command("", "-o", bin, "github.com/hyphae-run/hyphae/cmd/hyphae").CombinedOutput(); err != nil {
		stop()
		return nil, fmt.Errorf("build hyphae: %v\n%s", err, out)
	}
	builtBin = bin
	redisPort, apiPort := freePort(), freePort()
	start := func(name string, args ...string) error {
		cmd := exec.Command(name, args...)
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		log, _ := os.Create(filepath.Join(dir, filepath.Base(name)+".log"))
		cmd.Stdout, cmd.Stderr = log, log
		if err := cmd.Start(); err != nil {
			return err
		}
		procs = append(procs, cmd)
		return nil
	}
	if err := start("redis-server", "--port", redisPort, "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"); err != nil {
		stop()
		return nil, fmt.Errorf("redis-server: %w", err)
	}
	data := filepath.Join(dir, "d")
	if out, err := exec.Command(bin, "init", "--data-dir", data).CombinedOutput(); err != nil {
		stop()
		return nil, fmt.Errorf("hyphae init: %v\n%s", err, out)
	}
	target.redis = "redis://127.0.0.1:" + redisPort
	target.url = "http://127.0.0.1:" + apiPort
	target.local = true
	if err := waitFor(func() bool { c, err := net.Dial("tcp", "127.0.0.1:"+redisPort); ok(c); return err == nil }); err != nil {
		stop()
		return nil, fmt.Errorf("redis-server did not answer: %w", err)
	}
	err = start(bin, testnet.HostRunArgs("run", "--data-dir", data, "--redis", target.redis, "--api", "127.0.0.1:"+apiPort,
		"--listen", "/ip4/127.0.0.1/tcp/0", "--roles", "supervisor,runner")...)
	if err == nil {
		var tok []byte
		tok, err = os.ReadFile(filepath.Join(data, "api.token"))
		target.token = strings.TrimSpace(string(tok))
	}
	if err == nil {
		err = waitFor(agentAnswers)
	}
	if err == nil {
		err = onlyLocal(bin, data)
	}
	if err != nil {
		log, _ := os.ReadFile(filepath.Join(dir, "hyphae.log"))
		stop()
		return nil, fmt.Errorf("hyphae run: %v\n%s", err, log)
	}
	return stop, nil
}

// onlyLocal checks that the agent on data, which runs on the host,
// reports neither mDNS nor port mapping running (testnet.Guard's rule;
// TestMain has no *testing.T to give it).
func onlyLocal(bin, data string) error {
	out, err := exec.Command(bin, "info", "--json", "--data-dir", data).Output()
	if err != nil {
		return fmt.Errorf("hyphae info --json: %w", err)
	}
	e, err := testnet.InfoExposure(out)
	if err != nil {
		return err
	}
	if e.MDNS || e.PortMap {
		return fmt.Errorf("the agent on the host runs %v: it must run neither (testnet.OffFlags)", e)
	}
	return nil
}

func ok(c net.Conn) {
	if c != nil {
		c.Close()
	}
}

// agentAnswers reports whether the agent answers JSON-RPC at its root.
func agentAnswers() bool {
	req, _ := http.NewRequest(http.MethodPost, target.url+"/",
		bytes.NewReader([]byte(`{"jsonrpc":"2.0","id":1,"method":"context.load","params":{"id":1}}`)))
	req.Header.Set("Authorization", "Bearer "+target.token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

func waitFor(cond func() bool) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for !cond() {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
	return nil
}

func freePort() string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	defer l.Close()
	return fmt.Sprint(l.Addr().(*net.TCPAddr).Port)
}

// eventually polls cond for up to a minute.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	if err := waitFor(cond); err != nil {
		t.Fatalf("timed out waiting for %s", what)
	}
}
