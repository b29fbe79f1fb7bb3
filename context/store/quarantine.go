package store

// Poison quarantine (docs/idempotency.md). A job that keeps failing is not
// run again and again: when the runner claims an attempt that follows
// AfterFailures failed ones in a row (counted since the job's
// quarantine_base), the job ends error, quarantined, and goes to its
// context's dead letters, from where RetryDeadLetter runs it again with a
// fresh count (the claim's quarantine gate, claimgate_quarantine.go). The
// same claim enforces the raw Redis contract of idempotency keys: a
// queued job hash with idempotency_key, whose key was used by another job
// within the retention window, ends error with duplicate_of naming that
// job, without running (claimgate_idempotency.go).

// DefaultQuarantineAfter is how many failed attempts in a row quarantine
// a job when the agent's config says nothing (quarantine.after_failures).
const DefaultQuarantineAfter = 5

// Dead-letter classes: the reason label of hyphae_dead_letters_total.
const (
	DeadInvalid  = "invalid"  // a decode or validation error: it can never be processed as it is
	DeadUnusable = "unusable" // a queue entry that names no job to run (missing, not a hash, ended)
	DeadFailures = "failures" // quarantined after failing AfterFailures times in a row
)

// DeadLetterCountsKey is dead_letter:counts, the hash of how many entries
// each class has put in the context's dead letters, ever (a counter).
const DeadLetterCountsKey = DeadLetterKey + ":counts"

// SetQuarantineAfter sets how many failed attempts in a row quarantine a
// job: 0 the default, negative never.
func (s *Store) SetQuarantineAfter(n int) { s.poison.quarantineN.Store(int64(n)) }

// QuarantineAfter is how many failed attempts in a row quarantine a job
// (0: never).
func (s *Bus) QuarantineAfter() int64 {
	switch n := s.poison.quarantineN.Load(); {
	case n < 0:
		return 0
	case n == 0:
		return DefaultQuarantineAfter
	default:
		return n
	}
}
