package node_test

import (
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"
)

// filesBenchMB is the file's size: HYPHAE_FILES_FLOW_MB, default 256.
func filesBenchMB() int {
	if n, err := strconv.Atoi(os.Getenv("HYPHAE_FILES_FLOW_MB")); err == nil && n > 0 {
		return n
	}
	return 256
}

// BenchmarkFilesFlow: one file from a producer on agent a to a consumer on
// agent b that hashes it (outputs:, in/<producer>/), two in-process
// agents on 127.0.0.1, beside its baseline in the same run: the same flow
// whose consumer makes the same bytes itself and hashes them (no file
// moves). The difference is what files between agents cost end to end:
// the producer's Build into the store, the transfer, b's part and its
// placing under in/.
//
//	HYPHAE_FILES_FLOW_MB=1024 go test -run XXX -bench FilesFlow -benchtime 3x ./node/
func BenchmarkFilesFlow(b *testing.B) {
	a, r := flowPair(b)
	mb := filesBenchMB()
	moved := fmt.Sprintf(`name: bench-files
context: 1
jobs:
  make: {type: sh, runner: %s, outputs: [big], script: 'head -c %dM /dev/zero > big'}
  use: {type: sh, runner: %s, needs: make, script: 'sha256sum in/make/big > /dev/null'}
`, a.peerID(), mb, r.peerID())
	local := fmt.Sprintf(`name: bench-files-baseline
context: 1
jobs:
  make: {type: sh, runner: %s, script: 'head -c %dM /dev/zero > big'}
  use: {type: sh, runner: %s, needs: make, script: 'head -c %dM /dev/zero | sha256sum > /dev/null'}
`, a.peerID(), mb, r.peerID(), mb)
	var movedT, localT time.Duration
	for range b.N {
		for _, c := range []struct {
			text string
			d    *time.Duration
		}{{local, &localT}, {moved, &movedT}} {
			t0 := time.Now()
			v := waitFlow(b, a, runFlow(b, a, c.text))
			*c.d += time.Since(t0)
			if v.Status != "finished" {
				b.Fatalf("flow %s: %+v", v.Status, v.Jobs)
			}
		}
	}
	n := float64(b.N)
	b.ReportMetric(float64(mb)/movedT.Seconds()*n, "MiB/s_moved")
	b.ReportMetric((movedT-localT).Seconds()/n, "s_files_cost")
	b.ReportMetric(localT.Seconds()/n, "s_baseline")
}
