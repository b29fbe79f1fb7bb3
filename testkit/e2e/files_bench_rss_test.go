package e2e

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"time"
)

// rssSampler reads VmRSS of some processes every 50 ms and keeps each
// one's first sample and peak.
type rssSampler struct {
	pids       []int
	base, peak []int64
	quit, done chan struct{}
}

// sampleRSS starts sampling pids at once.
func sampleRSS(pids ...int) *rssSampler {
	s := &rssSampler{pids: pids, base: make([]int64, len(pids)), peak: make([]int64, len(pids)),
		quit: make(chan struct{}), done: make(chan struct{})}
	for i, pid := range pids {
		s.base[i] = vmRSS(pid)
		s.peak[i] = s.base[i]
	}
	go s.loop()
	return s
}

func (s *rssSampler) loop() {
	defer close(s.done)
	t := time.NewTicker(50 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-s.quit:
			return
		case <-t.C:
			for i, pid := range s.pids {
				s.peak[i] = max(s.peak[i], vmRSS(pid))
			}
		}
	}
}

// stop ends sampling, takes one last sample and returns each process's
// peak growth over its first sample, in MiB.
func (s *rssSampler) stop() []float64 {
	close(s.quit)
	<-s.done
	out := make([]float64, len(s.pids))
	for i, pid := range s.pids {
		s.peak[i] = max(s.peak[i], vmRSS(pid))
		out[i] = float64(s.peak[i]-s.base[i]) / (1 << 20)
	}
	return out
}

// vmRSS is VmRSS of pid in bytes (0 when it cannot be read).
func vmRSS(pid int) int64 {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			var kb int64
			_, _ = fmt.Sscan(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), &kb)
			return kb << 10
		}
	}
	return 0
}
