package embedredis

import "time"

// Defaults of RestartPolicy: eight restarts, 100 ms doubling to 5 s, so an
// outage that cannot heal is given up after about 16 s of waiting (plus the
// attempts themselves) and the agent can exit for its supervisor to act.
const (
	DefaultRestartAttempts   = 8
	DefaultRestartFirstDelay = 100 * time.Millisecond
	DefaultRestartMaxDelay   = 5 * time.Second
)

// stableAfter is how long a restarted child must stay up before its next
// death counts as a new outage; a child that dies sooner (e.g. right after
// answering PING, every time) keeps using up the same outage's attempts
// instead of being restarted forever. A variable so that tests can shorten it.
var stableAfter = time.Minute

// RestartPolicy says how the managed redis-server child is restarted when it
// dies on its own. The zero value means the defaults.
type RestartPolicy struct {
	// Attempts is how many restarts one outage may use before the Server
	// gives up (Failed is closed). 0 means DefaultRestartAttempts; a
	// negative value turns restarts off (the first death is final).
	Attempts int
	// FirstDelay is the wait before the first restart; it doubles after
	// each failed attempt, up to MaxDelay. Zero means the defaults.
	FirstDelay time.Duration
	MaxDelay   time.Duration
}

func (p RestartPolicy) withDefaults() RestartPolicy {
	if p.Attempts == 0 {
		p.Attempts = DefaultRestartAttempts
	}
	if p.Attempts < 0 {
		p.Attempts = 0
	}
	if p.FirstDelay <= 0 {
		p.FirstDelay = DefaultRestartFirstDelay
	}
	if p.MaxDelay <= 0 {
		p.MaxDelay = DefaultRestartMaxDelay
	}
	p.MaxDelay = max(p.MaxDelay, p.FirstDelay)
	return p
}

// delay is the wait before restart attempt n (0 for the first).
func (p RestartPolicy) delay(n int) time.Duration {
	d := p.FirstDelay
	for range n {
		if d >= p.MaxDelay/2 {
			return p.MaxDelay
		}
		d *= 2
	}
	return d
}
