package bridge

import (
	"time"

	"github.com/hyphae-run/hyphae/context/model"
)

// A message in the outbox (not acknowledged yet) ends error once one of
// its time-outs has passed since it was made: timeout (seconds allowed in
// all; default Config.Timeout) or, when the message sets it, timeout_ack
// (seconds allowed for the ack; seed 001 Message). A result message is
// kept on offer longer: the origin waits RunnerLostAfter for it.

// expired reports whether m has outlived a time-out.
func (b *Bridge) expired(m *model.Message) bool {
	if m.CreatedAt <= 0 {
		return false
	}
	return time.Since(time.Unix(m.CreatedAt, 0)) > b.allowed(m)
}

// allowed is how long after its making m may stay unacknowledged.
func (b *Bridge) allowed(m *model.Message) time.Duration {
	limit := b.cfg.Timeout
	if m.Timeout > 0 {
		limit = time.Duration(m.Timeout) * time.Second
	}
	if m.MessageType == model.MsgTypeResult {
		// The origin waits RunnerLostAfter for an unreachable runner's
		// result: it keeps being offered at least that long.
		return limit + b.cfg.RunnerLostAfter
	}
	if m.TimeoutAck > 0 {
		limit = min(limit, time.Duration(m.TimeoutAck)*time.Second)
	}
	return limit
}

// untilExpiry is d, or less when m's time-out ends sooner: the outbox then
// looks at m again just after it, so a message with a short time-out ends
// error in about that time, not at its next resend (issue 39).
func (b *Bridge) untilExpiry(m *model.Message, d time.Duration) time.Duration {
	if m.CreatedAt <= 0 || m.MessageType == model.MsgTypeResult || m.Timeout <= 0 && m.TimeoutAck <= 0 {
		return d
	}
	left := time.Until(time.Unix(m.CreatedAt, 0).Add(b.allowed(m))) + 100*time.Millisecond
	return max(min(d, left), 100*time.Millisecond)
}
