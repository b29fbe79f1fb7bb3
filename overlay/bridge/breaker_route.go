package bridge

import (
	"fmt"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/hyphae-run/hyphae/context/model"
)

// How the breakers (breaker.go) meet the send path: the routing rule
// (context/route) leaves a peer whose breaker refuses jobs waiting
// (routeView.Refused), plan asks at a job message's first send (admit),
// and the answers to job messages count as faults or successes (fault,
// resultOutcome).

// Breakers lists the circuit breakers of the peers this agent has seen
// fault, by peer ID; a peer not listed has a closed one.
func (b *Bridge) Breakers() []BreakerState { return b.breakers.states() }

// BreakerOf is peer's circuit breaker as this agent sees it (closed, with
// no faults, when it has none).
func (b *Bridge) BreakerOf(peerID string) BreakerState { return b.breakers.of(peerID) }

// initBreakers makes the breakers, which log their openings and closings.
func (b *Bridge) initBreakers() {
	b.breakers = newBreakers(b.cfg.Breaker)
	b.breakers.changed = func(p string, s BreakerState) {
		if s.State == BreakerClosed {
			b.log.Info("bridge: circuit breaker closed", "peer", p)
			return
		}
		b.log.Warn("bridge: circuit breaker opened: no jobs go to the peer for the cool-down",
			"peer", p, "faults", s.Failures, "last", s.LastError, "until", s.Until.Format(time.RFC3339))
	}
}

// admit asks dst's breaker whether a job message m may go there now, at
// its first send (sends 0; a retransmission always goes). A job the agent
// routes waits (wait, a reason) while the one it picked refuses it; a job
// addressed to dst is refused (an error wrapping ErrBreakerOpen).
func (b *Bridge) admit(m *model.Message, dst peer.ID, sends int) (wait string, err error) {
	return b.gate(m, dst, sends, true)
}

// gate is admit; take makes a job let through half-open the probe (false:
// only asking, for a check before the send, which asks again).
func (b *Bridge) gate(m *model.Message, dst peer.ID, sends int, take bool) (wait string, err error) {
	if sends > 0 || dst == b.self || m.MessageType != model.MsgTypeJob || len(m.Job) != 1 {
		return "", nil
	}
	name := b.names.name(dst)
	s, refused := b.breakers.refuses(name, take)
	switch {
	case !refused:
		return "", nil
	case m.Dst == "" && m.Job[0].Runner == "":
		return fmt.Sprintf("waiting: the circuit breaker of %s, the runner chosen, is %s", name, s.State), nil
	}
	return "", &breakerOpenError{peer: name, s: s}
}

// fault counts a fault of the peer a job message went to (m.Dst).
func (b *Bridge) fault(m *model.Message, reason string) {
	if m.MessageType == model.MsgTypeJob && m.Dst != "" && m.Dst != b.names.name(b.self) {
		b.breakers.fault(m.Dst, reason)
	}
}

// resultOutcome counts the result of a job from peer from: a fault when
// the job did not run there (breakerFault), else a success.
func (b *Bridge) resultOutcome(from peer.ID, p *payload) {
	if from == b.self {
		return
	}
	if breakerFault(model.JobStatus(p.Status), p.Result, p.Error) {
		b.breakers.fault(b.names.name(from), p.Error)
		return
	}
	b.breakers.success(b.names.name(from))
}

// breakerFault says whether a job's result is its runner's fault rather
// than its script's: it ended error without running (no exit_code: a type
// the agent lacks, a cgroup it could not make, its runner drained or its
// lease lost), and not because someone stopped it. A script's non-zero
// exit, its timeout or memory limit are the script's.
func breakerFault(status model.JobStatus, result map[string]string, reason string) bool {
	if status != model.JobError || reason == "stopped" {
		return false
	}
	_, ran := result["exit_code"]
	return !ran
}
