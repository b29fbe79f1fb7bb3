package model

import "strconv"

// Fields of ours for idempotency keys and poison quarantine, kept in a
// job's Extra (docs/idempotency.md).
const (
	// ExtraIdempotencyKey, on a job: the idempotency key it was submitted
	// with. A plain client that sets it on a job hash it pushes on a queue
	// gets the same guarantee as job.run's idempotency_key: a second job
	// with that key within the retention window does not run.
	ExtraIdempotencyKey = "idempotency_key"
	// ExtraIdempotencyHeld, "true" on a job submitted through the API with
	// a key: its record was claimed for it at submission, so the runner's
	// claim need not check the key again (a round trip saved).
	ExtraIdempotencyHeld = "idempotency_held"
	// ExtraDuplicateOf, on a job that did not run because its idempotency
	// key had been used: the key of the job (or flow) that used it first.
	ExtraDuplicateOf = "duplicate_of"
	// ExtraQuarantineBase, on a job: the attempt from which failures in a
	// row are counted again (set when the job is quarantined, so that a
	// retry of it gets a fresh count).
	ExtraQuarantineBase = "quarantine_base"
	// ExtraQuarantined, on a job or message: why it was quarantined (also
	// in its context's dead letters).
	ExtraQuarantined = "quarantined"
)

// IdempotencyKey is the idempotency key j was submitted with ("" none).
func (j *RunnerJob) IdempotencyKey() string { return j.Extra[ExtraIdempotencyKey] }

// SetIdempotencyKey records the idempotency key j is submitted with, whose
// record the submitter has claimed for j (ExtraIdempotencyHeld).
func (j *RunnerJob) SetIdempotencyKey(key string) {
	if key == "" {
		return
	}
	if j.Extra == nil {
		j.Extra = Hash{}
	}
	j.Extra[ExtraIdempotencyKey], j.Extra[ExtraIdempotencyHeld] = key, "true"
}

// DuplicateOf is the key of the job or flow that used j's idempotency key
// first, when j did not run for that reason ("" otherwise).
func (j *RunnerJob) DuplicateOf() string { return j.Extra[ExtraDuplicateOf] }

// QuarantineBase is the attempt after which failures in a row count.
func (j *RunnerJob) QuarantineBase() int64 {
	n, _ := strconv.ParseInt(j.Extra[ExtraQuarantineBase], 10, 64)
	return n
}
