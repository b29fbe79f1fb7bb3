package store

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"time"
)

// The claim protocol the API's submissions follow with an idempotency key
// (docs/idempotency.md): the first submission with a key claims its record
// (a placeholder until it knows what it made), names what it made once
// made, or releases the key when making failed; a second one waits while
// the first is still being made, then gets what it made.

// submissionPendingWait bounds how long a submission waits for another
// one with the same key that is still being made (it then names its
// object); submissionPoll is how often it looks again meanwhile.
const (
	submissionPendingWait = 10 * time.Second
	submissionPoll        = 20 * time.Millisecond
)

// SubmissionClaim is a fresh submission's hold on its idempotency key. A
// nil claim (no key) does nothing.
type SubmissionClaim struct {
	st    *Jobs
	ctxID uint64
	key   string
	ref   string // what the record names now: a placeholder until Done
}

// EarlierSubmission is what an earlier submission with the same key made:
// Ref in context Context, with content other than this one's when
// ContentDiffers.
type EarlierSubmission struct {
	Context        uint64
	Ref            string
	ContentDiffers bool
}

// PendingSubmissionError: the first submission with Key was still being
// made after the wait; the caller may try again.
type PendingSubmissionError struct{ Key string }

func (e *PendingSubmissionError) Error() string {
	return fmt.Sprintf("a submission with idempotency key %q is still being made; try again", e.Key)
}

// ClaimSubmission claims key (checked with CheckIdempotencyKey), in
// context ctxID, for a submission whose content has digest and which
// makes ref ("" when not known yet: a placeholder stands for it until
// Done). A key used within the retention window gives what the first
// submission made instead; one still being made is waited for, up to a
// bound (then *PendingSubmissionError).
func (s *Jobs) ClaimSubmission(ctx context.Context, ctxID uint64, key, ref, digest string) (*SubmissionClaim, *EarlierSubmission, error) {
	if ref == "" {
		ref = IdempotencyPending + randomHex()
	}
	deadline := time.Now().Add(submissionPendingWait)
	for {
		rec, fresh, err := s.ClaimIdempotencyRecord(ctx, ctxID, key, IdemRecord{Ref: ref, Digest: digest}, 0)
		switch {
		case err != nil:
			return nil, nil, err
		case fresh:
			return &SubmissionClaim{st: s, ctxID: ctxID, key: key, ref: ref}, nil, nil
		case !rec.Pending():
			return nil, &EarlierSubmission{Context: ctxID, Ref: rec.Ref, ContentDiffers: rec.Digest != digest}, nil
		case time.Now().After(deadline):
			return nil, nil, &PendingSubmissionError{Key: key}
		}
		select { // the first submission is under way: it names its object soon
		case <-ctx.Done():
			return nil, nil, ctx.Err()
		case <-time.After(submissionPoll):
		}
	}
}

// Done names on the record the object the submission made (ref).
func (c *SubmissionClaim) Done(ctx context.Context, ref string) {
	if c == nil || c.ref == ref {
		return
	}
	if _, err := c.st.SetIdempotencyRef(context.WithoutCancel(ctx), c.ctxID, c.key, c.ref, ref, 0); err == nil {
		c.ref = ref
	}
}

// Release frees the key of a submission that failed before making
// anything, so that trying again is not answered with a duplicate.
func (c *SubmissionClaim) Release(ctx context.Context) {
	if c != nil {
		_ = c.st.ReleaseIdempotency(context.WithoutCancel(ctx), c.ctxID, c.key, c.ref)
	}
}

func randomHex() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
