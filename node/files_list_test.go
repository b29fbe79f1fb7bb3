package node_test

import (
	"fmt"
	"testing"

	"github.com/hyphae-run/hyphae/node/api/wire"
)

// listFlow makes, on the agent it names, a job whose files list is far
// past one message (6,000 files under a long folder name, one content so
// the store keeps one blob), and a consumer on the other that counts them.
const listFlow = `name: many-files
context: 1
jobs:
  build:
    type: sh
    runner: %s
    outputs: ["a-build-tree-with-a-folder-name-long-enough-to-count/*"]
    script: |
      d=a-build-tree-with-a-folder-name-long-enough-to-count
      mkdir $d && cd $d && seq -f 'part-%%05g.o' 6000 | xargs touch
  count:
    type: sh
    needs: build
    runner: %s
    script: echo "n=$(ls "$HYPHAE_IN_BUILD_DIR"/a-build-tree-*/ | wc -l)" >> "$HYPHAE_RESULT"
`

// A job on another agent whose files list is too long for a result
// message ends at home with its whole list (fetched apart), and a consumer
// at home finds every file.
func TestFilesLongListComesHome(t *testing.T) {
	t.Parallel()
	a, b := flowPair(t)
	v := waitFlow(t, a, runFlow(t, a, fmt.Sprintf(listFlow, b.peerID(), a.peerID())))
	if v.Status != "finished" {
		t.Fatalf("flow %s: %+v", v.Status, v.Jobs)
	}
	var build wire.JobView
	a.call(t, "job.load", wire.JobRef{Context: 1, Key: jobOf(t, v, "build").Key}, &build)
	if build.RanOn != b.peerID() || len(build.Files) != 6000 {
		t.Fatalf("build ran on %q with %d files at home, want b and 6000", build.RanOn, len(build.Files))
	}
	if got := jobOf(t, v, "count").Result["n"]; got != "6000" {
		t.Fatalf("the consumer counted %q files, want 6000", got)
	}
}

// A consumer routed to another agent whose inputs list is too long for a
// job message gets it apart (fetched from the job's origin) and finds
// every file, fetched from the agent that made them.
func TestFilesLongInputsListGoesApart(t *testing.T) {
	t.Parallel()
	a, b := flowPair(t)
	v := waitFlow(t, a, runFlow(t, a, fmt.Sprintf(listFlow, a.peerID(), b.peerID())))
	count := jobOf(t, v, "count")
	if v.Status != "finished" || count.Status != "finished" {
		t.Fatalf("flow %s, count %s %q", v.Status, count.Status, count.Error)
	}
	var c wire.JobView
	a.call(t, "job.load", wire.JobRef{Context: 1, Key: count.Key}, &c)
	if c.RanOn != b.peerID() || count.Result["n"] != "6000" {
		t.Fatalf("the consumer ran on %q and counted %q files, want b and 6000", c.RanOn, count.Result["n"])
	}
}
