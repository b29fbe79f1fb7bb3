package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestFilesSenderKilledMidTransfer: the agent that holds a producer's file
// is killed with SIGKILL while the consumer's agent fetches it; the
// consumer's attempt fails, its retry finds the sender back (restarted on
// the same data dir) and fetches again from the part it kept (that the
// fetch resumes at its last verified chunk, files/transfer's resume tests
// show byte for byte): the consumer sees the producer's sha256.
func TestFilesSenderKilledMidTransfer(t *testing.T) {
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
