package store

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hyphae-run/hyphae/context/model"
)

// Lease is a runner's claim on one attempt of a job (LeasesKey and
// the job hash's LeaseField, or LeaseOwnersKey for a lease from before
// the owner moved into the hash, in the job's context DB).
type Lease struct {
	JobKey  string
	Owner   string // runner id holding it
	Attempt int64
	Expires time.Time

	stored *string // the lease_owners value as read (nil: built from Owner and Attempt)
}

// value is the lease_owners entry that identifies this lease: as read from
// Redis when it was read (even malformed or missing, so such a lease can
// still be taken over and cleaned up), else built.
func (l Lease) value() string {
	if l.stored != nil {
		return *l.stored
	}
	return leaseOwner(l.Attempt, l.Owner)
}

// Held names a lease a runner believes it holds.
type Held struct {
	JobKey  string
	Attempt int64
}

// RenewLeases extends the leases runnerID holds on the given jobs to
// now+lease. It returns the attempts whose lease is no longer this
// runner's (lost) and the job keys with a stop marker covering the attempt.
func (s *Queues) RenewLeases(ctx context.Context, ctxID uint64, runnerID string, held []Held,
	lease time.Duration) (lost []Held, stopped []string, err error) {
	if len(held) == 0 {
		return nil, nil, nil
	}
	db, err := s.db(ctxID)
	if err != nil {
		return nil, nil, fmt.Errorf("store.RenewLeases: %w", err)
	}
	args := []any{time.Now().Add(lease).UnixMilli(), runnerID}
	for _, h := range held {
		args = append(args, h.JobKey, strconv.FormatInt(h.Attempt, 10))
	}
	res, err := renewLeases.Run(ctx, db, []string{LeasesKey, LeaseOwnersKey}, args...).Slice()
	if err != nil {
		return nil, nil, scriptErr("store.RenewLeases", err)
	}
	if len(res) != 2 {
		return nil, nil, fmt.Errorf("store.RenewLeases: reply %v", res)
	}
	for _, v := range strs(res[0]) {
		if att, key, ok := parseLeaseOwner(v); ok {
			lost = append(lost, Held{JobKey: key, Attempt: att})
		}
	}
	return lost, strs(res[1]), nil
}

// renewLeases: see RenewLeases.
// KEYS[1] leases, KEYS[2] lease_owners. ARGV[1] new expiry (unix ms),
// ARGV[2] runner id, ARGV[3..] job key, attempt pairs. Reads stop:<job key>
// (names known only from ARGV; contexts are DBs of one Redis anyway).
// Returns {{"<attempt> <job key>" of each lost lease}, {stopped job keys}}.
var renewLeases = newScript("renewLeases", luaLease, `
local lost, stopped = {}, {}
for i = 3, #ARGV, 2 do
  local key, att = ARGV[i], ARGV[i + 1]
  if leaseGet(KEYS[2], key) == att .. ' ' .. ARGV[2] then
    redis.call('ZADD', KEYS[1], ARGV[1], key)
  else
    lost[#lost + 1] = att .. ' ' .. key
  end
  local s = redis.call('GET', 'stop:' .. key)
  if s and (s == '0' or (tonumber(s) or 0) >= tonumber(att)) then
    stopped[#stopped + 1] = key
  end
end
return {lost, stopped}
`)

func strs(v any) []string {
	l, _ := v.([]any)
	out := make([]string, 0, len(l))
	for _, x := range l {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// ExpiredLeases returns up to limit leases of the context that expired
// before now.
func (s *Queues) ExpiredLeases(ctx context.Context, ctxID uint64, now time.Time, limit int64) ([]Lease, error) {
	db, err := s.db(ctxID)
	if err != nil {
		return nil, fmt.Errorf("store.ExpiredLeases: %w", err)
	}
	zs, err := db.ZRangeByScoreWithScores(ctx, LeasesKey, &redis.ZRangeBy{
		Min: "-inf", Max: strconv.FormatInt(now.UnixMilli(), 10), Count: limit,
	}).Result()
	if err != nil || len(zs) == 0 {
		return nil, wrap("store.ExpiredLeases", err)
	}
	keys := make([]string, len(zs))
	for i, z := range zs {
		keys[i], _ = z.Member.(string)
	}
	owners, err := leaseOwners(ctx, db, keys)
	if err != nil {
		return nil, fmt.Errorf("store.ExpiredLeases: %w", err)
	}
	out := make([]Lease, 0, len(zs))
	for i, z := range zs {
		v := owners[i] // "" when missing
		att, owner, _ := parseLeaseOwner(v)
		out = append(out, Lease{JobKey: keys[i], Owner: owner, Attempt: att,
			Expires: time.UnixMilli(int64(z.Score)), stored: &v})
	}
	return out, nil
}

// LeaseOf returns the current lease on a job; ErrNotFound when none.
func (s *Queues) LeaseOf(ctx context.Context, ctxID uint64, jobKey string) (Lease, error) {
	db, err := s.db(ctxID)
	if err != nil {
		return Lease{}, fmt.Errorf("store.LeaseOf: %w", err)
	}
	vs, err := leaseOwners(ctx, db, []string{jobKey})
	if err != nil {
		return Lease{}, fmt.Errorf("store.LeaseOf %s: %w", jobKey, err)
	}
	v := vs[0]
	if v == "" {
		return Lease{}, fmt.Errorf("store.LeaseOf %s: %w", jobKey, ErrNotFound)
	}
	att, owner, _ := parseLeaseOwner(v)
	l := Lease{JobKey: jobKey, Owner: owner, Attempt: att, stored: &v}
	if sc, err := db.ZScore(ctx, LeasesKey, jobKey).Result(); err == nil {
		l.Expires = time.UnixMilli(int64(sc))
	}
	return l, nil
}

// leaseOwners reads the lease owner of each job key (luaLease: the job
// hash's lease field, else lease_owners), "" when none, in one pipeline.
func leaseOwners(ctx context.Context, db *redis.Client, keys []string) ([]string, error) {
	fields := make([]*redis.StringCmd, len(keys))
	var old *redis.SliceCmd
	_, err := db.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, k := range keys {
			fields[i] = p.HGet(ctx, k, LeaseField)
		}
		old = p.HMGet(ctx, LeaseOwnersKey, keys...)
		return nil
	})
	if err != nil && !errors.Is(err, redis.Nil) && !isWrongType(err) {
		return nil, err
	}
	out := make([]string, len(keys))
	for i := range keys {
		if v := fields[i].Val(); v != "" {
			out[i] = v
		} else if i < len(old.Val()) {
			out[i], _ = old.Val()[i].(string)
		}
	}
	return out, nil
}

// TakeLease hands lease l to newOwner for another lease period, if l's
// owner still holds it; with onlyExpired, only if it has expired. The
// attempt stays the same. It reports whether the lease was taken.
func (s *Queues) TakeLease(ctx context.Context, ctxID uint64, l Lease, newOwner string,
	lease time.Duration, onlyExpired bool) (Lease, bool, error) {
	db, err := s.db(ctxID)
	if err != nil {
		return Lease{}, false, fmt.Errorf("store.TakeLease: %w", err)
	}
	t := time.Now()
	nl := Lease{JobKey: l.JobKey, Owner: newOwner, Attempt: l.Attempt, Expires: t.Add(lease)}
	cutoff := ""
	if onlyExpired {
		cutoff = strconv.FormatInt(t.UnixMilli(), 10)
	}
	n, err := takeLease.Run(ctx, db, []string{LeasesKey, LeaseOwnersKey},
		l.JobKey, l.value(), nl.value(), nl.Expires.UnixMilli(), cutoff).Int64()
	if err != nil {
		return Lease{}, false, scriptErr("store.TakeLease", err)
	}
	return nl, n == 1, nil
}

// takeLease: see TakeLease.
// KEYS[1] leases, KEYS[2] lease_owners. ARGV[1] job key, ARGV[2] expected
// owner value ("" = no owner entry), ARGV[3] new owner value, ARGV[4] new
// expiry (unix ms), ARGV[5] now (unix ms) to require expiry, or "".
// Returns 1 when taken, else 0.
var takeLease = newScript("takeLease", luaLease, `
if (leaseGet(KEYS[2], ARGV[1]) or '') ~= ARGV[2] then return 0 end
if ARGV[5] ~= '' then
  local sc = redis.call('ZSCORE', KEYS[1], ARGV[1])
  if sc and tonumber(sc) > tonumber(ARGV[5]) then return 0 end
end
leasePut(KEYS[2], ARGV[1], ARGV[3])
redis.call('ZADD', KEYS[1], ARGV[4], ARGV[1])
return 1
`)

// ReleaseLease removes the job from processing:<listOwner> and deletes
// lease l if its owner still holds it.
func (s *Queues) ReleaseLease(ctx context.Context, ctxID uint64, l Lease, listOwner string) error {
	db, err := s.db(ctxID)
	if err != nil {
		return fmt.Errorf("store.ReleaseLease: %w", err)
	}
	keys := []string{ProcessingKey(listOwner), LeasesKey, LeaseOwnersKey}
	err = releaseLease.Run(ctx, db, keys, l.JobKey, l.value()).Err()
	return scriptErr("store.ReleaseLease", err)
}

// releaseLease: see ReleaseLease.
// KEYS[1] processing:<runner>, KEYS[2] leases, KEYS[3] lease_owners.
// ARGV[1] job key, ARGV[2] owner value "<attempt> <runner>".
// Returns 1 when the lease was deleted, 0 when someone else holds it.
var releaseLease = newScript("releaseLease", luaLease, `
return release(KEYS[1], KEYS[2], KEYS[3], ARGV[1], ARGV[2])
`)

// CompleteLeased is CompleteJob (same effects: final status and fields,
// reply:<key> for waiters, jobs_done for the scheduler, remote_done for
// the bridge) and ReleaseLease of l from processing:<listOwner>, in one
// script. The release happens whatever the completion answers (a fenced
// attempt still gives its lease up); the error is the completion's.
func (s *Queues) CompleteLeased(ctx context.Context, ctxID uint64, l Lease, listOwner string,
	status model.JobStatus, fields model.Hash) error {
	if !status.Terminal() {
		return fmt.Errorf("store.CompleteLeased: %q is not a final status", status)
	}
	db, err := s.db(ctxID)
	if err != nil {
		return fmt.Errorf("store.CompleteLeased: %w", err)
	}
	keys, args := completeLeasedArgs(l, listOwner, status, fields)
	return scriptErr("store.CompleteLeased", completeLeased.Run(ctx, db, keys, args...).Err())
}

// completeLeased: see CompleteLeased. The lease goes first, whatever the
// fence answers; then the attempt ends with completeJob's effects.
// KEYS[1..4] as completeJob's (job key, reply:<job key>, jobs_done,
// remote_done), KEYS[5] processing:<runner>, KEYS[6] leases,
// KEYS[7] lease_owners.
// ARGV[1..4] as completeJob's (expected attempt or "", finished|error,
// now, reply TTL), ARGV[5] lease owner value "<attempt> <runner>",
// ARGV[6] now (unix ms, the timeline's), ARGV[7..] field, value pairs.
// The end's timeline entry goes in the status's HSET (timelineNext), its
// detail the error field given (or the job's, when none is).
// Returns 1, or an error as completeJob's.
var completeLeased = newScript("completeLeased", luaLease, luaFence, luaAnnounceEnd, luaTimeline, `
jobKnow(KEYS[1])
local released, oldLease = release(KEYS[5], KEYS[6], KEYS[7], KEYS[1], ARGV[5], true)
local clear = released == 1 and not oldLease
local err = fence(KEYS[1], ARGV[1], ARGV[2])
if err then
  if clear then redis.pcall('HDEL', KEYS[1], 'lease') end
  return err
end
nowMS = tonumber(ARGV[6])
local why = false
for i = 7, #ARGV - 1, 2 do
  if ARGV[i] == 'error' then why = ARGV[i + 1] end
end
if ARGV[2] ~= 'error' then why = false elseif not why or why == '' then why = nil end
local tl = timelineNext(KEYS[1], ARGV[2], why)
redis.call('HSET', KEYS[1], 'status', ARGV[2], 'updated_at', ARGV[3], 'timeline', tl,
  'lease', clear and '' or (jobKnown[KEYS[1]].lease or ''), unpack(ARGV, 7))
announceEnd(KEYS[1], KEYS[2], KEYS[3], KEYS[4], ARGV[2], ARGV[4])
return 1
`)

// completeLeasedArgs builds the KEYS and ARGV of the completeLeased script.
func completeLeasedArgs(l Lease, listOwner string, status model.JobStatus, fields model.Hash) ([]string, []any) {
	keys, args := endArgs(l.JobKey, l.Attempt, status)
	keys = append(keys, ProcessingKey(listOwner), LeasesKey, LeaseOwnersKey)
	args = append(args, l.value(), time.Now().UnixMilli())
	return keys, append(args, pairs(guarded(fields))...)
}
