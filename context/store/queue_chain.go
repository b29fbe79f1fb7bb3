package store

import (
	"context"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hyphae-run/hyphae/context/model"
)

// CompleteAndClaim is CompleteLeased of l followed by ClaimJob (mode run)
// for the same runner in the same context, sent in one round trip: a
// runner that finishes a job takes its next one with the completion's
// write. The two scripts stay separate operations, each atomic. err is the
// completion's error (as CompleteLeased's); claimErr the claim's; the claim
// is nil when the queues were empty.
func (s *Queues) CompleteAndClaim(ctx context.Context, ctxID uint64, l Lease, runnerID string,
	status model.JobStatus, fields model.Hash, types []string, lease time.Duration) (cl *Claim, claimErr, err error) {
	if !status.Terminal() {
		return nil, nil, fmt.Errorf("store.CompleteAndClaim: %q is not a final status", status)
	}
	db, err := s.db(ctxID)
	if err != nil {
		return nil, nil, fmt.Errorf("store.CompleteAndClaim: %w", err)
	}
	cKeys, cArgs := completeLeasedArgs(l, runnerID, status, fields)
	q := s.newClaimCall(ctxID, runnerID, types, lease, false)
	plain := claimScript(0)
	var done, next *redis.Cmd
	_, _ = db.Pipelined(ctx, func(p redis.Pipeliner) error {
		done = completeLeased.EvalSha(ctx, p, cKeys, cArgs...)
		next = plain.EvalSha(ctx, p, q.keys, q.args...)
		return nil
	})
	done = orLoad(ctx, db, completeLeased, done, cKeys, cArgs...)
	next = orLoad(ctx, db, plain, next, q.keys, q.args...)
	cl, claimErr = q.run(ctx, db, next) // further rounds when the job needs gates (claim_gates.go)
	if claimErr != nil {
		claimErr = fmt.Errorf("store.CompleteAndClaim: %w", claimErr)
	}
	return cl, claimErr, scriptErr("store.CompleteAndClaim", done.Err())
}
