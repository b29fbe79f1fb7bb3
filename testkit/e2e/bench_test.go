package e2e

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/multiformats/go-multiaddr"

	"github.com/hyphae-run/hyphae/node"
	"github.com/hyphae-run/hyphae/node/api"
	"github.com/hyphae-run/hyphae/node/api/wire"
	"github.com/hyphae-run/hyphae/testkit/overlaybench"
)

// BenchmarkCrossAgentProcesses is node's BenchmarkCrossAgentRoundTrip
// with each party in its own OS process, as on two machines: two `hyphae
// run` agents (each with its embedded redis-server, default presence
// interval, log level warn), and this process as the client calling
// alice's API on her unix socket: job.run of a noop job into bob's context
// 4, waiting for its result. The raw baseline is interleaved one for one
// and split the same way: a bare host here publishes 1 KiB to a bare host
// in a helper process (this test binary, re-run with rawEchoEnv), which
// publishes it back.
//
// Metrics as overlaybench.Interleaved reports them: p50-µs, p99-µs and
// jobs/s (ours), raw-p50-µs and raw-p99-µs, ratio-p50 (ours over raw).
func BenchmarkCrossAgentProcesses(b *testing.B) {
	_, bob, client := crossPair(b)
	params := map[string]any{"to": bob.peer, "context": 4, "type": "noop", "script": "-", "wait": 60}
	ours := func() time.Duration {
		start := time.Now()
		var got wire.JobView
		if err := client.Call(context.Background(), "job.run", params, &got); err != nil || got.Status != "finished" {
			b.Fatalf("job.run: %v, job %+v", err, got)
		}
		return time.Since(start)
	}
	overlaybench.Interleaved(b, 20, ours, rawAcrossProcesses(b))
}

// crossPair starts bob and alice (bootstrapped from bob), each a `hyphae
// run` with its embedded store, log level warn; bob's context 4 grants
// alice executor, and alice sees bob up. client calls alice's API.
func crossPair(b *testing.B) (alice, bob *flowAgent, client *api.Client) {
	args := []string{"--presence-interval", "3s", "--log-level", "warn"}
	bob = startFlowAgent(b, "bob", "", args...)
	alice = startFlowAgent(b, "alice", "", append(args, "--bootstrap", bob.addr(b))...)
	bob.hy(b, "context", "create", "--id", "4")
	bob.hy(b, "context", "grant", "4", "--actor", alice.peer, "--role", "executor")
	alice.waitPeerUp(b, bob.peer, "noop")
	return alice, bob, api.NewUnixClient(node.PathsFor(alice.dir).Socket)
}

// BenchmarkRawAcrossProcesses is BenchmarkCrossAgentProcesses's raw
// baseline measured alone, as overlay's BenchmarkRawPubsubRoundTrip is: a
// bare host here and one in a helper process, 1 KiB published and echoed
// back over gossipsub, with no agent running beside them. It reports
// p50-µs and p99-µs.
func BenchmarkRawAcrossProcesses(b *testing.B) {
	overlaybench.Alone(b, 20, rawAcrossProcesses(b))
}

// rawEchoEnv, when set, makes this test binary the raw baseline's echoing
// host (rawEcho) instead of running tests.
const rawEchoEnv = "HYPHAE_E2E_RAW_ECHO"

// rawAcrossProcesses starts the echoing host in a helper process and a
// bare host here, connected, and returns one request/response.
func rawAcrossProcesses(b *testing.B) func() time.Duration {
	ctx := context.Background()
	echo := startRawEcho(b)
	h, ps := overlaybench.Host(b, ctx)
	in, out := overlaybench.Join(b, ps, "raw/a", "raw/b")
	if err := overlaybench.ConnectTopic(ctx, h, echo, out); err != nil {
		b.Fatal(err)
	}
	return func() time.Duration {
		d, err := overlaybench.RoundTrip(ctx, out, in)
		if err != nil {
			b.Fatal(err)
		}
		return d
	}
}

// startRawEcho runs this binary as rawEcho and returns its address; the
// helper exits when its stdin closes, at b's cleanup.
func startRawEcho(b *testing.B) peer.AddrInfo {
	info, _ := startRawEchoPID(b)
	return info
}

// startRawEchoPID is startRawEcho that also returns the helper's pid.
func startRawEchoPID(b *testing.B) (peer.AddrInfo, int) {
	self, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	cmd := exec.Command(self)
	cmd.Env = append(os.Environ(), rawEchoEnv+"=1")
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = stdin.Close(); _ = cmd.Wait() })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		b.Fatalf("raw echo helper: %v", err)
	}
	addr, err := multiaddr.NewMultiaddr(strings.TrimSpace(line))
	if err != nil {
		b.Fatalf("raw echo helper said %q: %v", line, err)
	}
	info, err := peer.AddrInfoFromP2pAddr(addr)
	if err != nil {
		b.Fatal(err)
	}
	return *info, cmd.Process.Pid
}

// rawEcho is the helper process: a bare host echoing topic raw/b onto
// raw/a. It prints its address, then serves until stdin closes.
func rawEcho() int {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	h, ps, err := overlaybench.NewHost(ctx)
	if err != nil {
		fmt.Fprintln(os.Stderr, "raw echo:", err)
		return 1
	}
	defer h.Close()
	in, out, err := overlaybench.JoinTopics(ps, "raw/b", "raw/a")
	if err != nil {
		fmt.Fprintln(os.Stderr, "raw echo:", err)
		return 1
	}
	fmt.Printf("%s/p2p/%s\n", h.Addrs()[0], h.ID())
	go overlaybench.Echo(ctx, in, out)
	_, _ = io.Copy(io.Discard, os.Stdin)
	return 0
}
