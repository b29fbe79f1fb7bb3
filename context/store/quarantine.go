package store

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hyphae-run/hyphae/context/model"
)

// Poison quarantine (docs/idempotency.md). A job that keeps failing is not
// run again and again: when the runner claims an attempt that follows
// AfterFailures failed ones in a row (counted since the job's
// quarantine_base), the job ends error, quarantined, and goes to its
// context's dead letters, from where RetryDeadLetter runs it again with a
// fresh count. The same claim enforces the raw Redis contract of
// idempotency keys: a queued job hash with idempotency_key, whose key was
// used by another job within the retention window, ends error with
// duplicate_of naming that job, without running.

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
func (s *Store) QuarantineAfter() int64 {
	switch n := s.poison.quarantineN.Load(); {
	case n < 0:
		return 0
	case n == 0:
		return DefaultQuarantineAfter
	default:
		return n
	}
}

// screenClaim checks a job just claimed to run against its idempotency key
// and its failures in a row. A job it must not run is ended in one script
// (error, its lease released, its end announced) and the claim comes back
// as VerdictInvalid with the reason: quarantined (and dead-lettered), or
// "duplicate: …" (duplicate_of set; not a dead letter: nothing is wrong
// with it). Most claims need no round trip: only a job with an
// idempotency key of its own, or enough attempts behind it, is checked;
// and an entry the claim dead-lettered is counted (dead_letter:counts).
func (s *Store) screenClaim(ctx context.Context, db *redis.Client, c *Claim) (*Claim, error) {
	if c != nil && (c.Verdict == VerdictDead || c.Verdict == VerdictInvalid) {
		class := DeadUnusable
		if c.Verdict == VerdictInvalid {
			class = DeadInvalid
		}
		if err := db.HIncrBy(ctx, DeadLetterCountsKey, class, 1).Err(); err != nil {
			s.log.Warn("store: counting a dead letter", "job", c.JobKey, "err", err)
		}
	}
	if c == nil || c.Verdict != VerdictRun {
		return c, nil
	}
	key := ownIdempotencyKey(c.Hash)
	n := s.QuarantineAfter()
	base, _ := strconv.ParseInt(c.Hash[model.ExtraQuarantineBase], 10, 64)
	failing := n > 0 && c.Attempt-1-base >= n
	if key == "" && !failing {
		return c, nil
	}
	ttl := int64(0)
	if key != "" {
		ttl = s.IdempotencyTTL().Milliseconds()
	} else {
		key = "-" // no key: KEYS[2] is not read
	}
	if !failing {
		n = 0
	}
	keys := []string{c.JobKey, IdempotencyKey(key), ProcessingKey(c.Lease.Owner), LeasesKey, LeaseOwnersKey,
		DeadLetterKey, JobsDoneKey, RemoteDoneKey, ReplyKey(c.JobKey), DeadLetterCountsKey}
	res, err := screenJob.Run(ctx, db, keys, c.Attempt, ttl, n, now(), c.Lease.value(),
		int64(ReplyTTL/time.Second), DeadLetterCap, QueueKey(c.Type), c.Lease.Owner, key).StringSlice()
	if err != nil {
		return nil, fmt.Errorf("store.screenClaim %s: %w", c.JobKey, err)
	}
	if len(res) == 2 {
		c.Verdict, c.Reason = VerdictInvalid, res[1]
	}
	return c, nil
}

// ownIdempotencyKey is the idempotency key the claim's job checks here:
// none for a job from another agent (its origin checked it), a flow's, or
// one whose key was claimed for it when it was submitted.
func ownIdempotencyKey(h model.Hash) string {
	if h[model.ExtraOriginPeer] != "" || (h["flow_id"] != "" && h["flow_id"] != "0") ||
		h[model.ExtraIdempotencyHeld] == "true" {
		return ""
	}
	return h[model.ExtraIdempotencyKey]
}

// screenJob: see screenClaim.
// KEYS[1] job key, KEYS[2] idem:<its key>, KEYS[3] processing:<runner>,
// KEYS[4] leases, KEYS[5] lease_owners, KEYS[6] dead_letter, KEYS[7]
// jobs_done, KEYS[8] remote_done, KEYS[9] reply:<job key>, KEYS[10]
// dead_letter:counts. ARGV[1] the attempt claimed, ARGV[2] the key's TTL
// (ms; 0: no key to check), ARGV[3] failures in a row that quarantine (0:
// do not check), ARGV[4] now (unix s), ARGV[5] the lease's owner value,
// ARGV[6] reply TTL (s), ARGV[7] dead-letter cap, ARGV[8] the queue,
// ARGV[9] the runner, ARGV[10] the idempotency key.
// The timeline gets the attempt's end ("error", and "quarantined" before it
// for a quarantine), detail why.
// Returns {"run"}, {"duplicate", why} or {"quarantined", why}; a job that
// is no longer that attempt, started, is left alone ({"run"}: the runner's
// fenced writes then fail as for any superseded attempt).
var screenJob = newScript("screenJob", luaLease, luaAnnounceEnd, luaTimeline, `
local cur = redis.call('HMGET', KEYS[1], 'status', 'attempt', 'error', 'quarantine_base')
if cur[1] ~= 'started' or cur[2] ~= ARGV[1] then return {'run'} end
local function stop(why, fields, event)
  redis.call('HSET', KEYS[1], 'status', 'error', 'error', why, 'updated_at', ARGV[4], unpack(fields))
  release(KEYS[3], KEYS[4], KEYS[5], KEYS[1], ARGV[5])
  announceEnd(KEYS[1], KEYS[9], KEYS[7], KEYS[8], 'error', ARGV[6])
  if event then timeline(KEYS[1], event, why) end
  timeline(KEYS[1], 'error', why)
end
if ARGV[2] ~= '0' then
  local ref = redis.call('HGET', KEYS[2], 'ref')
  if not ref then
    redis.call('HSET', KEYS[2], 'ref', KEYS[1], 'digest', '', 'at', ARGV[4])
    redis.call('PEXPIRE', KEYS[2], tonumber(ARGV[2]))
  elseif ref ~= KEYS[1] then
    local why = 'duplicate: idempotency key "' .. ARGV[10] .. '" was used by ' .. ref ..
      ' within the retention window; this job did not run'
    stop(why, {'duplicate_of', ref})
    return {'duplicate', why}
  end
end
if ARGV[3] ~= '0' then
  local n = tonumber(ARGV[3])
  local failed = tonumber(ARGV[1]) - 1 - (tonumber(cur[4] or '0') or 0)
  if failed >= n then
    local why = 'quarantined: ' .. failed .. ' attempts failed in a row (quarantine.after_failures ' .. n ..
      '); last error: ' .. (cur[3] or '')
    stop(why, {'quarantined', why, 'quarantine_base', ARGV[1]}, 'quarantined')
    redis.call('LPUSH', KEYS[6], cjson.encode({key = KEYS[1], queue = ARGV[8], reason = why,
      runner = ARGV[9], at = tonumber(ARGV[4]), class = 'failures'}))
    redis.call('LTRIM', KEYS[6], 0, tonumber(ARGV[7]) - 1)
    redis.call('HINCRBY', KEYS[10], 'failures', 1)
    return {'quarantined', why}
  end
end
return {'run'}
`)
