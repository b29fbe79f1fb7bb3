package node_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/libp2p/go-libp2p"
	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/hyphae-run/hyphae/files"
	"github.com/hyphae-run/hyphae/files/cas"
	"github.com/hyphae-run/hyphae/files/transfer"
	"github.com/hyphae-run/hyphae/node/api/wire"
)

// backupFlow dumps on one agent and "uploads" on another: the upload job
// checks the dump it finds under in/dump/ and reports its sha256.
const backupFlow = `name: backup
context: 1
jobs:
  dump:
    type: sh
    runner: %s
    outputs: [db.sql]
    script: |
      echo 'CREATE TABLE t; -- %s' > db.sql
  upload:
    type: sh
    needs: dump
    runner: %s
    script: |
      [ "$HYPHAE_IN_DUMP_DIR" = "$PWD/in/dump" ] || { echo "HYPHAE_IN_DUMP_DIR=$HYPHAE_IN_DUMP_DIR" >&2; exit 3; }
      echo "sha=$(sha256sum in/dump/db.sql | cut -d' ' -f1)" >> "$HYPHAE_RESULT"
`

// A producer's output file reaches the consumer on the other agent, under
// in/<producer>/, with the sha256 the producer recorded: from the agent
// that runs flows to another (the consumer's own ref), and back (the
// producer's agent gives it to an actor with a role in its context).
func TestFilesFlowAcrossAgents(t *testing.T) {
	t.Parallel()
	a, b := flowPair(t)
	for _, tc := range []struct {
		name       string
		dump, load *agent
	}{{"a to b", a, b}, {"b to a", b, a}} {
		t.Run(tc.name, func(t *testing.T) {
			v := waitFlow(t, a, runFlow(t, a, fmt.Sprintf(backupFlow, tc.dump.peerID(), tc.name, tc.load.peerID())))
			if v.Status != "finished" {
				t.Fatalf("flow %s: %+v", v.Status, v.Jobs)
			}
			var dump wire.JobView
			a.call(t, "job.load", wire.JobRef{Context: 1, Key: jobOf(t, v, "dump").Key}, &dump)
			if len(dump.Files) != 1 || dump.Files[0].Path != "db.sql" {
				t.Fatalf("dump's files %+v", dump.Files)
			}
			if tc.dump != a && dump.RanOn != b.peerID() {
				t.Fatalf("dump ran on %q, want b", dump.RanOn)
			}
			if got := jobOf(t, v, "upload").Result["sha"]; got != dump.Files[0].SHA256 {
				t.Fatalf("upload saw sha256 %q, the dump recorded %q", got, dump.Files[0].SHA256)
			}
			content := "CREATE TABLE t; -- " + tc.name + "\n"
			if sum := sha256.Sum256([]byte(content)); hex.EncodeToString(sum[:]) != dump.Files[0].SHA256 {
				t.Fatalf("the dump's sha256 is not that of what it wrote")
			}
		})
	}
}

// A peer that runs no job needing the files and has no role in the
// producer's context is refused, with the reason, and nothing is written on
// its side; the agent that ran the consumer may have them.
func TestFilesRefusedToStranger(t *testing.T) {
	t.Parallel()
	a, b := flowPair(t)
	v := waitFlow(t, a, runFlow(t, a, fmt.Sprintf(backupFlow, a.peerID(), "x", b.peerID())))
	if v.Status != "finished" {
		t.Fatalf("flow %s", v.Status)
	}
	dumpKey, uploadKey := jobOf(t, v, "dump").Key, jobOf(t, v, "upload").Key
	j, err := a.Store().Jobs.LoadJobKey(context.Background(), 1, dumpKey)
	if err != nil {
		t.Fatal(err)
	}
	entries, err := files.DecodeEntries(j.FilesJSON())
	if err != nil || len(entries) != 1 {
		t.Fatalf("entries %v %v", entries, err)
	}
	h, err := libp2p.New(libp2p.ListenAddrStrings("/ip4/127.0.0.1/tcp/0"))
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	ai, err := peer.AddrInfoFromString(a.addr(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := h.Connect(context.Background(), *ai); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	st, err := cas.Open(dir, cas.Options{})
	if err != nil {
		t.Fatal(err)
	}
	c := transfer.NewClient(h, st, transfer.Config{})
	for _, ref := range []string{"1/" + dumpKey, "1/" + uploadKey} {
		err = c.FetchAll(context.Background(), ai.ID, entries, ref, nil)
		if !errors.Is(err, files.ErrRefused) || !strings.Contains(err.Error(), "has no role in context 1") {
			t.Fatalf("ref %s: %v, want refused for want of a role", ref, err)
		}
	}
	if st.Has(entries[0].SHA256) || st.Used() != 0 {
		t.Fatalf("a refusal wrote something: has %v, used %d", st.Has(entries[0].SHA256), st.Used())
	}
	if parts, _ := os.ReadDir(filepath.Join(dir, "parts")); len(parts) != 0 {
		t.Fatalf("a refusal left parts: %v", parts)
	}
}

// When the producer and the consumer run on two agents other than the
// flow's, the consumer's agent has no role on the producer's: it asks with
// a grant the flow's agent (the producer's origin) signed for it, and gets
// the files. The same grant in another peer's hands is refused.
func TestFilesFlowThirdAgent(t *testing.T) {
	t.Parallel()
	a, b := flowPair(t)
	c := startAgent(t, agentOpts{bootstrap: []string{a.addr(t)}})
	c.call(t, "context.create", map[string]any{"id": 1}, nil)
	c.call(t, "context.grant", map[string]any{"id": 1, "actor": a.peerID(), "role": "executor"}, nil)
	waitPeerUp(t, a, c.peerID())
	waitPeerUp(t, c, b.peerID())
	v := waitFlow(t, a, runFlow(t, a, fmt.Sprintf(backupFlow, b.peerID(), "third", c.peerID())))
	if v.Status != "finished" {
		t.Fatalf("flow %s: %+v", v.Status, v.Jobs)
	}
	var dump wire.JobView
	a.call(t, "job.load", wire.JobRef{Context: 1, Key: jobOf(t, v, "dump").Key}, &dump)
	if len(dump.Files) != 1 || jobOf(t, v, "upload").Result["sha"] != dump.Files[0].SHA256 {
		t.Fatalf("upload saw %q, the dump recorded %+v", jobOf(t, v, "upload").Result["sha"], dump.Files)
	}

	// The upload's grant, as c received it, presented by a stranger.
	up, err := c.Store().Jobs.ListJobs(context.Background(), 1)
	if err != nil || len(up) != 1 {
		t.Fatalf("c's jobs: %v %v", up, err)
	}
	ins, err := files.DecodeInputs(up[0].InputsJSON())
	if err != nil || len(ins) != 1 || !strings.HasPrefix(ins[0].Ref, "g1.") {
		t.Fatalf("c's job inputs %+v %v, want one set asked for with a grant", ins, err)
	}
	h, err := libp2p.New(libp2p.ListenAddrStrings("/ip4/127.0.0.1/tcp/0"))
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	ai, err := peer.AddrInfoFromString(b.addr(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := h.Connect(context.Background(), *ai); err != nil {
		t.Fatal(err)
	}
	st, err := cas.Open(t.TempDir(), cas.Options{})
	if err != nil {
		t.Fatal(err)
	}
	err = transfer.NewClient(h, st, transfer.Config{}).FetchAll(context.Background(), ai.ID, ins[0].Files, ins[0].Ref, nil)
	if !errors.Is(err, files.ErrRefused) || !strings.Contains(err.Error(), "grant refused") || st.Used() != 0 {
		t.Fatalf("a stranger with c's grant: %v (used %d), want refused", err, st.Used())
	}
}

// A rerun from the consumer reuses the producer's files: the consumer
// finds them under in/<producer>/ again, though the producer did not run.
func TestFilesRerunReusesTheProducersFiles(t *testing.T) {
	t.Parallel()
	a, b := flowPair(t)
	v := waitFlow(t, a, runFlow(t, a, fmt.Sprintf(backupFlow, b.peerID(), "rerun", a.peerID())))
	if v.Status != "finished" {
		t.Fatalf("flow %s: %+v", v.Status, v.Jobs)
	}
	var again wire.FlowView
	a.call(t, "flow.rerun", wire.FlowRerunParams{FlowRef: wire.FlowRef{Context: 1, ID: v.ID}, From: "upload"}, &again)
	w := waitFlow(t, a, &again)
	if w.Status != "finished" || jobOf(t, w, "dump").ReusedFrom == "" {
		t.Fatalf("rerun %s: %+v", w.Status, w.Jobs)
	}
	if got, want := jobOf(t, w, "upload").Result["sha"], jobOf(t, v, "upload").Result["sha"]; got == "" || got != want {
		t.Fatalf("the rerun's upload saw %q, the first run's %q", got, want)
	}
}
