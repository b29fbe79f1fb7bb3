package scheduler_test

import (
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hyphae-run/hyphae/context/model"
)

// lostLog records Config.Lost's calls.
type lostLog struct {
	mu    sync.Mutex
	peers []string
	why   []string
}

func (l *lostLog) lost(peer, why string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.peers, l.why = append(l.peers, peer), append(l.why, why)
}

func (l *lostLog) got() ([]string, []string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.peers), slices.Clone(l.why)
}

// A flow job given up on as lost, with no retries left, is reported once
// with the peer it went to, for that peer's circuit breaker.
func TestLostFlowJobIsReported(t *testing.T) {
	e := newEnv(t, 0)
	var l lostLog
	cfg := e.config()
	cfg.RunnerLostAfter = 50 * time.Millisecond
	cfg.PeerUp = func(p string) bool { return p != peerA }
	cfg.Lost = l.lost
	s := e.sched(t, cfg)
	fl := e.run(t, s, "jobs:\n  far: {type: sh, runner: "+peerA+", script: 'true'}\n")
	wantFlow(t, e.wait(t, s, fl.ID), model.FlowError)
	peers, why := l.got()
	if len(peers) != 1 || peers[0] != peerA || !strings.Contains(why[0], "runner "+peerA+" unreachable for ") {
		t.Fatalf("Lost calls: peers %v, reasons %q; want one for %s", peers, why, peerA)
	}
}

// A lost attempt that is tried again elsewhere is reported too: the peer
// it was lost on failed it, whatever the next attempt does.
func TestLostFlowJobRetriedIsReported(t *testing.T) {
	e := newEnv(t, 0)
	register(t, e, peerA, peerB)
	var l lostLog
	cfg := e.config()
	cfg.RunnerLostAfter = 50 * time.Millisecond
	cfg.PeerUp = func(p string) bool { return p != peerA }
	cfg.Lost = l.lost
	cfg.PickRunner = func(_ string, avoid []string) string {
		if slices.Contains(avoid, peerA) {
			return peerB
		}
		return peerA
	}
	s := e.sched(t, cfg)
	e.run(t, s, "jobs:\n  train: {type: gpu, retries: 1, script: 'train'}\n")
	if m := outbox(t, e); m.Dst != peerA {
		t.Fatalf("first attempt went to %s, want peerA", m.Dst)
	}
	if m := outbox(t, e); m.Dst != peerB { // after peerA stays down past runner_lost_after
		t.Fatalf("second attempt went to %s, want peerB", m.Dst)
	}
	if peers, _ := l.got(); !slices.Equal(peers, []string{peerA}) {
		t.Fatalf("Lost calls for peers %v; want [peerA] once", peers)
	}
}
