package bridge

import (
	"log/slog"
	"sync"
	"time"
)

// reasonMalformedJob counts a job message from a sender known here whose
// job cannot be used (no script, no type, undecodable fields): its own
// reason, apart from "unauthorized", so a broken client is told from an
// intruder.
const reasonMalformedJob = "malformed_job"

// Stats counts what crossed the bridge; the node exports it as metrics.
type Stats struct {
	mu          sync.Mutex
	rejected    map[string]int64 // by reason; guarded by mu
	sent        map[string]int64 // by message type; guarded by mu
	received    map[string]int64 // by message type; guarded by mu
	retransmits int64            // guarded by mu
	resent      int64            // messages sent again at once when their peer came back; guarded by mu
	lateResults int64            // results kept from runners given up on as lost; guarded by mu
	lastLog     map[string]time.Time
}

func newStats() *Stats {
	return &Stats{rejected: map[string]int64{}, sent: map[string]int64{}, received: map[string]int64{},
		lastLog: map[string]time.Time{}}
}

// Snapshot is a copy of the counters.
type Snapshot struct {
	Rejected    map[string]int64
	Sent        map[string]int64
	Received    map[string]int64
	Retransmits int64
	// ResentOnReturn counts messages sent again at once because their
	// peer came back (not because their backoff ran out).
	ResentOnReturn int64
	// LateResults counts results kept (late_result) from runners whose
	// jobs had been given up on as lost.
	LateResults int64
}

// Snapshot copies the counters.
func (s *Stats) Snapshot() Snapshot {
	s.mu.Lock()
	defer s.mu.Unlock()
	cp := func(m map[string]int64) map[string]int64 {
		out := make(map[string]int64, len(m))
		for k, v := range m {
			out[k] = v
		}
		return out
	}
	return Snapshot{Rejected: cp(s.rejected), Sent: cp(s.sent), Received: cp(s.received), Retransmits: s.retransmits,
		ResentOnReturn: s.resent, LateResults: s.lateResults}
}

func (s *Stats) add(m map[string]int64, k string) {
	s.mu.Lock()
	m[k]++
	s.mu.Unlock()
}

func (s *Stats) retransmit() {
	s.mu.Lock()
	s.retransmits++
	s.mu.Unlock()
}

func (s *Stats) resentOnReturn(n int) {
	s.mu.Lock()
	s.resent += int64(n)
	s.mu.Unlock()
}

func (s *Stats) lateResult() {
	s.mu.Lock()
	s.lateResults++
	s.mu.Unlock()
}

// reject counts a rejection and logs it at most once per sender and reason
// every 10 s.
func (s *Stats) reject(log *slog.Logger, from, reason string, err error) {
	s.mu.Lock()
	s.rejected[reason]++
	k := from + "/" + reason
	now := time.Now()
	quiet := now.Sub(s.lastLog[k]) < 10*time.Second
	if !quiet {
		s.lastLog[k] = now
		if len(s.lastLog) > 10000 {
			s.lastLog = map[string]time.Time{}
		}
	}
	s.mu.Unlock()
	if !quiet {
		log.Warn("bridge: rejected message", "from", from, "reason", reason, "err", err)
	}
}
