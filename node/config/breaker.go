package config

import (
	"fmt"
	"time"
)

// Breaker tunes the circuit breakers this agent keeps per destination
// peer (docs/breakers.md): Threshold faults of a peer in a row within
// Window stop jobs going there for Cooldown, then one probe job goes.
type Breaker struct {
	// Threshold: faults in a row that open a peer's breaker; default 5;
	// -1 turns the breakers off.
	Threshold int           `yaml:"threshold"`
	Window    time.Duration `yaml:"window"`   // the faults count only within this span; default 1m
	Cooldown  time.Duration `yaml:"cooldown"` // open this long, then one probe job goes; default 30s
}

// The breaker defaults.
const (
	defaultBreakerThreshold = 5
	defaultBreakerWindow    = time.Minute
	defaultBreakerCooldown  = 30 * time.Second
)

func (b *Breaker) defaults() {
	setDefault(&b.Threshold, defaultBreakerThreshold)
	setDefault(&b.Window, defaultBreakerWindow)
	setDefault(&b.Cooldown, defaultBreakerCooldown)
}

// On reports whether the breakers are on (threshold -1 turns them off).
func (b Breaker) On() bool { return b.Threshold > 0 }

func (b *Breaker) validate() []error {
	var errs []error
	if b.Threshold < -1 {
		errs = append(errs, fmt.Errorf("breaker.threshold: %d (want a count of faults, or -1: off)", b.Threshold))
	}
	for _, d := range []struct {
		name string
		v    time.Duration
	}{{"breaker.window", b.Window}, {"breaker.cooldown", b.Cooldown}} {
		if d.v < 0 {
			errs = append(errs, fmt.Errorf("%s: %v must not be negative", d.name, d.v))
		}
	}
	return errs
}
