package bridge

import (
	"errors"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/crypto/identity"
)

// testBreakers are breakers on a clock the test moves.
func testBreakers(threshold int, window, cooldown time.Duration) (*breakers, *time.Time) {
	bs := newBreakers(BreakerConfig{Threshold: threshold, Window: window, Cooldown: cooldown})
	now := time.Unix(1_000_000, 0)
	bs.now = func() time.Time { return now }
	return bs, &now
}

// A peer's breaker opens after Threshold faults in a row, refuses jobs for
// the cool-down, then lets one probe through (a second one waits); the
// probe's success closes it, its failure opens it again.
func TestBreakerOpensProbesAndCloses(t *testing.T) {
	bs, now := testBreakers(3, time.Minute, 10*time.Second)
	for i := 0; i < 2; i++ {
		bs.fault("p", "refused")
	}
	if _, refused := bs.refuses("p", true); refused {
		t.Fatal("refused after 2 faults; the threshold is 3")
	}
	bs.fault("p", "refused by p")
	s, refused := bs.refuses("p", true)
	if !refused || s.State != BreakerOpen || s.Failures != 3 || s.Trips != 1 || s.LastError != "refused by p" {
		t.Fatalf("after 3 faults: %+v refused %v; want open", s, refused)
	}
	*now = now.Add(10 * time.Second)
	if s, refused := bs.refuses("p", true); refused || s.State != BreakerHalfOpen {
		t.Fatalf("after the cool-down: %+v refused %v; want one probe through, half-open", s, refused)
	}
	if _, refused := bs.refuses("p", true); !refused {
		t.Fatal("a second job went while the probe was under way")
	}
	bs.fault("p", "refused again")
	if s := bs.of("p"); s.State != BreakerOpen || s.Trips != 2 {
		t.Fatalf("after the probe failed: %+v; want open again", s)
	}
	*now = now.Add(10 * time.Second)
	bs.refuses("p", true)
	bs.success("p")
	if s := bs.of("p"); s.State != BreakerClosed || s.Failures != 0 {
		t.Fatalf("after the probe succeeded: %+v; want closed", s)
	}
}

// Faults spread wider than the window, or broken by a success, do not
// open a breaker; a probe that never answers gives way to another after a
// cool-down; threshold 0 is off.
func TestBreakerCountsOnlyFaultsInARowWithinTheWindow(t *testing.T) {
	bs, now := testBreakers(2, time.Minute, 10*time.Second)
	bs.fault("p", "x")
	*now = now.Add(2 * time.Minute)
	bs.fault("p", "x")
	if s := bs.of("p"); s.State != BreakerClosed || s.Failures != 1 {
		t.Fatalf("two faults two minutes apart (window 1m): %+v", s)
	}
	bs.success("p")
	bs.fault("p", "x")
	if s := bs.of("p"); s.State != BreakerClosed {
		t.Fatalf("a success between faults: %+v", s)
	}
	bs.fault("p", "x")
	*now = now.Add(10 * time.Second)
	bs.refuses("p", true) // the probe, never answered
	*now = now.Add(10 * time.Second)
	if _, refused := bs.refuses("p", true); refused {
		t.Fatal("no second probe a cool-down after an unanswered one")
	}
	off, _ := testBreakers(0, 0, 0)
	for i := 0; i < 10; i++ {
		off.fault("p", "x")
	}
	if _, refused := off.refuses("p", true); refused || len(off.states()) != 0 {
		t.Fatal("threshold 0 should be off")
	}
}

// A job addressed to a peer whose breaker is open is refused with an
// error that names the breaker (and is treated as a job with nowhere to
// go); a job the agent routes waits instead.
func TestAdmitRefusesAddressedJobsAndHoldsRoutedOnes(t *testing.T) {
	b := &Bridge{names: newPeerNames()}
	b.breakers, _ = testBreakers(1, time.Minute, time.Hour)
	dst := testPeerID(t)
	b.breakers.fault(b.names.name(dst), "refused by it")
	addressed := &model.Message{MessageType: model.MsgTypeJob, Dst: dst.String(), Job: []*model.RunnerJob{{}}}
	_, err := b.admit(addressed, dst, 0)
	if !errors.Is(err, ErrBreakerOpen) || !errors.Is(err, ErrNoRunner) {
		t.Fatalf("addressed job: %v; want ErrBreakerOpen", err)
	}
	if _, err := b.admit(addressed, dst, 1); err != nil {
		t.Fatalf("a retransmission: %v; want it let through", err)
	}
	routed := &model.Message{MessageType: model.MsgTypeJob, Job: []*model.RunnerJob{{}}}
	if wait, err := b.admit(routed, dst, 0); err != nil || wait == "" {
		t.Fatalf("routed job: wait %q, %v; want it waiting", wait, err)
	}
}

// What a remote result says about its runner: a job that did not run
// there is a fault; a script's failure, or a stop, is not.
func TestBreakerFault(t *testing.T) {
	for _, c := range []struct {
		status model.JobStatus
		result map[string]string
		reason string
		fault  bool
	}{
		{model.JobError, nil, `no runner on this agent serves script type "perl"`, true},
		{model.JobError, map[string]string{}, "drained", true},
		{model.JobError, map[string]string{"exit_code": "1"}, "exit status 1", false},
		{model.JobError, map[string]string{"exit_code": "-1"}, "timeout", false},
		{model.JobError, nil, "stopped", false},
		{model.JobFinished, map[string]string{"exit_code": "0"}, "", false},
	} {
		if got := breakerFault(c.status, c.result, c.reason); got != c.fault {
			t.Errorf("breakerFault(%s, %v, %q) = %v, want %v", c.status, c.result, c.reason, got, c.fault)
		}
	}
}

// testPeerID is a fresh peer ID.
func testPeerID(t *testing.T) peer.ID {
	t.Helper()
	id, err := identity.Generate()
	if err != nil {
		t.Fatal(err)
	}
	return id.PeerID()
}
