package model

import (
	"errors"
	"fmt"
	"strconv"
	"unicode/utf8"
)

// Ordering per key (issue 29): jobs of one context that share a
// concurrency key run at most MaxInFlight at a time, in submission order,
// on the runner that takes them; jobs with other keys or none run beside
// them. Both fields live in the job's Extra, so they travel with the job
// hash (to another agent too) and a plain Redis client sets them with the
// rest of the job.
const (
	// ExtraConcurrencyKey names the job's serialization key; absent or ""
	// = none.
	ExtraConcurrencyKey = "concurrency_key"
	// ExtraMaxInFlight is how many jobs of the key may run at once
	// (decimal, default 1: strictly one after another).
	ExtraMaxInFlight = "max_in_flight"
)

// MaxConcurrencyKey bounds a concurrency key's length in bytes (it is part
// of Redis key names).
const MaxConcurrencyKey = 200

// MaxMaxInFlight bounds max_in_flight.
const MaxMaxInFlight = 100000

// Concurrency is a job's key and its in-flight limit; the zero value is no
// key.
type Concurrency struct {
	Key         string
	MaxInFlight int64 // 0 with a key = 1
}

// Concurrency returns j's key and limit (1 when unset or unreadable: the
// runner's gate reads it the same way).
func (j *RunnerJob) Concurrency() Concurrency {
	key := j.Extra[ExtraConcurrencyKey]
	if key == "" {
		return Concurrency{}
	}
	n, err := strconv.ParseInt(j.Extra[ExtraMaxInFlight], 10, 64)
	if err != nil || n < 1 {
		n = 1
	}
	return Concurrency{Key: key, MaxInFlight: n}
}

// SetConcurrency writes c into j's Extra (the zero value clears them).
func (j *RunnerJob) SetConcurrency(c Concurrency) {
	if c.Key == "" {
		delete(j.Extra, ExtraConcurrencyKey)
		delete(j.Extra, ExtraMaxInFlight)
		return
	}
	if j.Extra == nil {
		j.Extra = Hash{}
	}
	j.Extra[ExtraConcurrencyKey] = c.Key
	j.Extra[ExtraMaxInFlight] = strconv.FormatInt(max(c.MaxInFlight, 1), 10)
}

// ErrConcurrency is the cause of a bad concurrency key or limit.
var ErrConcurrency = errors.New("bad concurrency_key or max_in_flight")

// Check reports why c cannot be used: a key that is too long, not UTF-8 or
// holds control characters, a limit out of range, or a limit without a
// key.
func (c Concurrency) Check() error {
	switch {
	case c.Key == "" && c.MaxInFlight != 0:
		return fmt.Errorf("%w: max_in_flight needs a concurrency_key", ErrConcurrency)
	case len(c.Key) > MaxConcurrencyKey:
		return fmt.Errorf("%w: concurrency_key is %d bytes, at most %d", ErrConcurrency, len(c.Key), MaxConcurrencyKey)
	case !utf8.ValidString(c.Key) || hasControl(c.Key):
		return fmt.Errorf("%w: concurrency_key %q: want printable text", ErrConcurrency, c.Key)
	case c.MaxInFlight < 0 || c.MaxInFlight > MaxMaxInFlight:
		return fmt.Errorf("%w: max_in_flight %d: want 1 to %d", ErrConcurrency, c.MaxInFlight, MaxMaxInFlight)
	}
	return nil
}

func hasControl(s string) bool {
	for _, r := range s {
		if r < 0x20 || r == 0x7f {
			return true
		}
	}
	return false
}
