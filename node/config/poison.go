package config

import (
	"fmt"
	"time"
)

// Idempotency says how long a submission's idempotency key is remembered
// (docs/idempotency.md): a second job.run, flow.start, flow.run or
// event-triggered run with the same key within the window answers the
// first one's job or flow instead of running again.
type Idempotency struct {
	Retention time.Duration `yaml:"retention"` // default 24h, as Stripe's keys
}

// Quarantine says when a job that keeps failing is set aside: after
// AfterFailures failed attempts in a row (retries and reruns alike) it is
// not run again but ended error and put in its context's dead letters,
// from where `hyphae deadletter retry` runs it again with a fresh count.
type Quarantine struct {
	// AfterFailures: default 5; negative never quarantines for failures
	// (decode and validation errors are dead-lettered regardless).
	AfterFailures int `yaml:"after_failures"`
}

const (
	defaultIdempotencyRetention = 24 * time.Hour
	defaultQuarantineAfter      = 5
)

func (i *Idempotency) defaults() { setDefault(&i.Retention, defaultIdempotencyRetention) }

func (q *Quarantine) defaults() { setDefault(&q.AfterFailures, defaultQuarantineAfter) }

func (i *Idempotency) validate() []error {
	if i.Retention < 0 {
		return []error{fmt.Errorf("idempotency.retention: %v must not be negative", i.Retention)}
	}
	return nil
}
