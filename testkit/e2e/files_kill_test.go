package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hyphae-run/hyphae/files"
	"github.com/hyphae-run/hyphae/node"
	"github.com/hyphae-run/hyphae/node/api"
	"github.com/hyphae-run/hyphae/testkit/testnet"
)

// The two tests here run alone, before the parallel ones. Each writes
// 384 MiB twice (the dump, the fetched copy), and while that keeps the disk's fsyncs slow, a redis-server with appendfsync
// everysec postpones its AOF writes (up to 2 s) after it has answered:
// a kill -9 of another test's agent then loses what it had just been
// told was stored (TestDelayedJobSurvivesKill9OfAgentAndRedis, once).

// TestFilesSenderKilledMidTransfer: the agent that holds a producer's file
// is killed with SIGKILL while the consumer's agent fetches it; the
// consumer's attempt fails, its retry finds the sender back (restarted on
// the same data dir) and fetches again from the part it kept (that the
// fetch resumes at its last verified chunk, files/transfer's resume tests
// show byte for byte): the consumer sees the producer's sha256.
func TestFilesSenderKilledMidTransfer(t *testing.T) {
	// Not parallel: see the top of this file.
	home := startFlowAgent(t, "home", "")
	nas := startFlowAgent(t, "nas", "", "--bootstrap", home.addr(t))
	home.hy(t, "context", "create", "--id", "1")
	nas.hy(t, "context", "create", "--id", "1")
	nas.hy(t, "context", "grant", "1", "--actor", home.peer, "--role", "executor")
	home.waitPeerUp(t, nas.peer, "sh")

	flow := writeFlow(t, `
name: big-dump
context: 1
jobs:
  dump:
    type: sh
    runner: `+nas.peer+`
    outputs: [dump.bin]
    script: head -c 384M /dev/zero > dump.bin
  upload:
    type: sh
    needs: dump
    retries: 8
    script: echo "sha=$(sha256sum "$HYPHAE_IN_DUMP_DIR/dump.bin" | cut -d' ' -f1)" >> "$HYPHAE_RESULT"
`)
	home.hy(t, "flow", "run", flow)
	parts := filepath.Join(home.dir, "files", "parts")
	var at int64
	eventually(t, 2*time.Minute, "home to have part of the dump", func() bool {
		es, _ := os.ReadDir(parts)
		for _, e := range es {
			if fi, err := e.Info(); err == nil && strings.HasSuffix(e.Name(), ".part") && fi.Size() > 0 {
				at = fi.Size()
				return true
			}
		}
		return false
	})
	nas.proc.kill9()
	t.Logf("nas killed with %d bytes of the dump's part at home", at)
	nas.restart(t)

	var f struct {
		Status string `json:"status"`
		Jobs   []struct {
			Name    string            `json:"name"`
			Key     string            `json:"key"`
			Attempt int64             `json:"attempt"`
			Error   string            `json:"error"`
			Result  map[string]string `json:"result"`
		} `json:"jobs"`
	}
	decode(t, home.hy(t, "flow", "watch", "-c", "1", "1", "--json"), &f)
	if f.Status != "finished" || len(f.Jobs) != 2 {
		t.Fatalf("flow %s: %+v", f.Status, f.Jobs)
	}
	var files struct {
		Files []struct {
			SHA256 string `json:"sha256"`
		} `json:"files"`
	}
	decode(t, home.hy(t, "job", "files", "-c", "1", f.Jobs[0].Key, "--json"), &files)
	if len(files.Files) != 1 || f.Jobs[1].Result["sha"] != files.Files[0].SHA256 {
		t.Fatalf("upload saw %q, the dump recorded %+v", f.Jobs[1].Result["sha"], files.Files)
	}
	t.Logf("upload finished at attempt %d", f.Jobs[1].Attempt)
}

// TestFilesCutLinkMidTransfer: the link of the agent that holds a
// producer's file is cut (network namespaces) while the consumer's agent
// fetches it, until that agent is seen down, then mended: the transfer
// goes on, or the consumer's retry fetches again from the part it kept,
// and the consumer sees the producer's sha256.
func TestFilesCutLinkMidTransfer(t *testing.T) {
	// Not parallel: see the top of this file.
	lab := testnet.NewLab(t, 2)
	home, nas := newDataDir(t), newDataDir(t)
	homeID, nasID := peerIDOf(t, home), peerIDOf(t, nas)
	args := []string{"--api", "off", "--listen", "/ip4/0.0.0.0/tcp/4001", "--presence-interval", "500ms"}
	startRun(t, home, lab.Exec(0), args...)
	startRun(t, nas, lab.Exec(1), args...)
	eventually(t, 60*time.Second, "nas seen up at home", func() bool { return peerStates(t, home)[nasID].State == "up" })
	hy(t, "context", "create", "--id", "1", "--data-dir", home)
	hy(t, "context", "create", "--id", "1", "--data-dir", nas)
	hy(t, "context", "grant", "1", "--actor", homeID, "--role", "executor", "--data-dir", nas)

	flow := writeFlow(t, `
name: big-dump
context: 1
jobs:
  dump:
    type: sh
    runner: `+nasID+`
    outputs: [dump.bin]
    script: head -c 384M /dev/zero > dump.bin
  upload:
    type: sh
    needs: dump
    retries: 8
    script: echo "sha=$(sha256sum "$HYPHAE_IN_DUMP_DIR/dump.bin" | cut -d' ' -f1)" >> "$HYPHAE_RESULT"
`)
	hy(t, "flow", "run", flow, "--data-dir", home)
	// Cut once home holds more of the dump than the bytes a link can have
	// in flight (the stream's window, the sockets' buffers), which the nas
	// counts as served though home never got them: a fetch that started
	// over would send all it held again, one that resumed little of it.
	part := waitPart(t, filepath.Join(home, "files", "parts"), cutAtPart)
	if err := lab.Cut(1); err != nil {
		t.Fatal(err)
	}
	kept := partSize(part)
	t.Logf("link cut with %d bytes of the dump's part at home", kept)
	eventually(t, 60*time.Second, "nas seen down at home", func() bool { return peerStates(t, home)[nasID].State == "down" })
	if err := lab.Mend(1); err != nil {
		t.Fatal(err)
	}
	var f struct {
		Status string `json:"status"`
		Jobs   []struct {
			Key     string            `json:"key"`
			Attempt int64             `json:"attempt"`
			Result  map[string]string `json:"result"`
		} `json:"jobs"`
	}
	decode(t, hy(t, "flow", "watch", "-c", "1", "1", "--json", "--data-dir", home), &f)
	if f.Status != "finished" || len(f.Jobs) != 2 {
		t.Fatalf("flow %s: %+v", f.Status, f.Jobs)
	}
	var got struct {
		Files []struct {
			SHA256 string `json:"sha256"`
		} `json:"files"`
	}
	decode(t, hy(t, "job", "files", "-c", "1", f.Jobs[0].Key, "--json", "--data-dir", home), &got)
	if len(got.Files) != 1 || f.Jobs[1].Result["sha"] != got.Files[0].SHA256 {
		t.Fatalf("upload saw %q, the dump recorded %+v", f.Jobs[1].Result["sha"], got.Files)
	}
	t.Logf("upload finished at attempt %d", f.Jobs[1].Attempt)
	const size, chunk = 384 << 20, files.DefaultChunkSize
	served := metricValue(t, nas, "hyphae_files_served_bytes_total")
	t.Logf("the nas served %d bytes for a %d-byte file: %d sent twice", served, size, served-size)
	if served < size || served-size >= kept-chunk {
		t.Errorf("the nas served %d bytes for a %d-byte file: %d sent twice of the %d home kept at the cut: the fetch started over",
			served, size, served-size, kept)
	}
	// What reached home twice is at most the chunk it had not finished.
	fetched := metricValue(t, home, "hyphae_files_fetched_bytes_total")
	t.Logf("home fetched %d bytes for a %d-byte file: %d received twice", fetched, size, fetched-size)
	if fetched < size || fetched-size > chunk {
		t.Errorf("home fetched %d bytes for a %d-byte file: %d received twice, want at most one chunk (%d)",
			fetched, size, fetched-size, chunk)
	}
}

// cutAtPart is how much of the dump home holds when its link is cut.
const cutAtPart = 48 << 20

// waitPart waits for a .part file in dir of at least n bytes and returns
// its path. It looks often: the link is fast enough to fetch the rest of
// the dump between two looks of a poll that backs off.
func waitPart(t *testing.T, dir string, n int64) string {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for time.Now().Before(deadline) {
		es, _ := os.ReadDir(dir)
		for _, e := range es {
			if fi, err := e.Info(); err == nil && strings.HasSuffix(e.Name(), ".part") && fi.Size() >= n {
				return filepath.Join(dir, e.Name())
			}
		}
		time.Sleep(2 * time.Millisecond)
	}
	t.Fatalf("timed out waiting for a part of at least %d bytes in %s", n, dir)
	return ""
}

// partSize is the size of the part file at path, 0 if it is gone.
func partSize(path string) int64 {
	fi, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return fi.Size()
}

// metricValue reads one unlabelled series from the /metrics of the agent
// in dir, over its API socket.
func metricValue(t *testing.T, dir, name string) int64 {
	t.Helper()
	code, body, err := api.NewUnixClient(node.PathsFor(dir).Socket).Get(context.Background(), "/metrics")
	if err != nil || code != 200 {
		t.Fatalf("GET /metrics: %d %v", code, err)
	}
	for _, line := range strings.Split(string(body), "\n") {
		if v, ok := strings.CutPrefix(line, name+" "); ok {
			f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			if err != nil {
				t.Fatalf("%s: %v", line, err)
			}
			return int64(f)
		}
	}
	t.Fatalf("/metrics has no %s:\n%s", name, body)
	return 0
}
