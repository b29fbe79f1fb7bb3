package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"
	"unicode"

	"github.com/redis/go-redis/v9"
)

// Idempotency keys (docs/idempotency.md). A submission that carries an
// idempotency key claims idem:<key> in the context DB that records it (the
// origin: a job sent to another agent is recorded here, not there). The
// record names what the first submission made — a job key or flow key —
// and lives for the retention window (a Redis TTL), so a second submission
// with the same key, from any client and across restarts of the agent,
// gets that first object back instead of running again.

// DefaultIdempotencyTTL is how long an idempotency record is kept when the
// agent's config says nothing (idempotency.retention).
const DefaultIdempotencyTTL = 24 * time.Hour

// MaxIdempotencyKey bounds an idempotency key's length (bytes).
const MaxIdempotencyKey = 255

// IdempotencyPending is the prefix of a record's ref while its submission
// is being made (ClaimPending): the object's key is not known yet.
const IdempotencyPending = "pending:"

// pendingTTL bounds how long a pending record outlives an agent that died
// between claiming it and naming the object it made.
const pendingTTL = time.Minute

// IdempotencyKey is idem:<key>, the record of an idempotency key.
func IdempotencyKey(key string) string { return "idem:" + key }

// CheckIdempotencyKey refuses an empty, over-long or unprintable key.
func CheckIdempotencyKey(key string) error {
	switch {
	case key == "":
		return errors.New("idempotency key is empty")
	case len(key) > MaxIdempotencyKey:
		return fmt.Errorf("idempotency key is %d bytes; at most %d", len(key), MaxIdempotencyKey)
	case strings.IndexFunc(key, func(r rune) bool { return !unicode.IsPrint(r) || unicode.IsSpace(r) }) >= 0:
		return errors.New("idempotency key must be printable, without spaces")
	}
	return nil
}

// IdemRecord is what an idempotency key's record holds: the key of the
// object the first submission made (a job:<caller>:<id> or flow:<id> key,
// or IdempotencyPending… while it is being made) and a digest of that
// submission's content, to tell a repeat from a different request.
type IdemRecord struct {
	Ref    string
	Digest string
}

// Pending reports whether the first submission is still being made.
func (r IdemRecord) Pending() bool { return strings.HasPrefix(r.Ref, IdempotencyPending) }

// claimIdempotency records ref under key in context contextID for ttl
// (0: the store's retention, SetIdempotencyTTL) unless key is recorded
// already: then it returns the recorded ref and fresh false. A fresh
// claim's caller goes on to make ref; it calls ReleaseIdempotency if
// that fails, so that a retry may claim the key again.
func (s *core) claimIdempotency(ctx context.Context, contextID uint64, key, ref string, ttl time.Duration) (existing string, fresh bool, err error) {
	rec, fresh, err := s.jobs.ClaimIdempotencyRecord(ctx, contextID, key, IdemRecord{Ref: ref}, ttl)
	if fresh || err != nil {
		return "", fresh, err
	}
	return rec.Ref, false, nil
}

// ClaimIdempotencyRecord is ClaimIdempotency with the submission's digest
// kept beside its ref; the existing record comes back whole.
func (s *Jobs) ClaimIdempotencyRecord(ctx context.Context, contextID uint64, key string, rec IdemRecord,
	ttl time.Duration) (IdemRecord, bool, error) {
	if err := CheckIdempotencyKey(key); err != nil {
		return IdemRecord{}, false, fmt.Errorf("store.ClaimIdempotency: %w", err)
	}
	db, err := s.db(contextID)
	if err != nil {
		return IdemRecord{}, false, fmt.Errorf("store.ClaimIdempotency: %w", err)
	}
	if ttl <= 0 {
		ttl = s.idempotencyTTL()
	}
	if rec.Pending() {
		ttl = min(ttl, pendingTTL)
	}
	res, err := claimIdem.Run(ctx, db, []string{IdempotencyKey(key)}, rec.Ref, rec.Digest, ttl.Milliseconds(), now()).StringSlice()
	if errors.Is(err, redis.Nil) {
		return rec, true, nil
	}
	if err != nil {
		return IdemRecord{}, false, fmt.Errorf("store.ClaimIdempotency: %w", err)
	}
	out := IdemRecord{}
	if len(res) == 2 {
		out = IdemRecord{Ref: res[0], Digest: res[1]}
	}
	return out, false, nil
}

// claimIdem: see ClaimIdempotencyRecord. KEYS[1] idem:<key>. ARGV[1] ref,
// ARGV[2] digest, ARGV[3] TTL (ms), ARGV[4] now (unix s). Returns nil when
// the claim is fresh, else {ref, digest} of the record there.
var claimIdem = newScript("claimIdem", `
local cur = redis.call('HMGET', KEYS[1], 'ref', 'digest')
if cur[1] then return {cur[1], cur[2] or ''} end
redis.call('HSET', KEYS[1], 'ref', ARGV[1], 'digest', ARGV[2], 'at', ARGV[4])
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[3]))
return nil
`)

// SetIdempotencyRef names, on key's record, the object its submission
// made (to) in place of the placeholder from, and keeps the record for
// ttl (0: the store's retention) from now. It reports false when the
// record no longer holds from (it expired, or was released).
func (s *Jobs) SetIdempotencyRef(ctx context.Context, contextID uint64, key, from, to string, ttl time.Duration) (bool, error) {
	db, err := s.db(contextID)
	if err != nil {
		return false, fmt.Errorf("store.SetIdempotencyRef: %w", err)
	}
	if ttl <= 0 {
		ttl = s.idempotencyTTL()
	}
	n, err := setIdemRef.Run(ctx, db, []string{IdempotencyKey(key)}, from, to, ttl.Milliseconds()).Int64()
	if err != nil {
		return false, fmt.Errorf("store.SetIdempotencyRef: %w", err)
	}
	return n == 1, nil
}

// setIdemRef: see SetIdempotencyRef. KEYS[1] idem:<key>. ARGV[1] the ref
// expected, ARGV[2] the new ref, ARGV[3] TTL (ms). Returns 1 when set.
var setIdemRef = newScript("setIdemRef", `
if redis.call('HGET', KEYS[1], 'ref') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'ref', ARGV[2])
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[3]))
return 1
`)

// ReleaseIdempotency drops key's record if it still names ref (a
// submission that failed before making anything), so the key can be used
// again at once.
func (s *Jobs) ReleaseIdempotency(ctx context.Context, contextID uint64, key, ref string) error {
	db, err := s.db(contextID)
	if err != nil {
		return fmt.Errorf("store.ReleaseIdempotency: %w", err)
	}
	err = releaseIdem.Run(ctx, db, []string{IdempotencyKey(key)}, ref).Err()
	return wrap("store.ReleaseIdempotency", err)
}

// releaseIdem: KEYS[1] idem:<key>, ARGV[1] the ref it must hold.
var releaseIdem = newScript("releaseIdem", `
if redis.call('HGET', KEYS[1], 'ref') == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`)

// loadIdempotency reads key's record; ErrNotFound when there is none
// (never used, or expired).
func (s *core) loadIdempotency(ctx context.Context, contextID uint64, key string) (IdemRecord, error) {
	db, err := s.db(contextID)
	if err != nil {
		return IdemRecord{}, fmt.Errorf("store.LoadIdempotency: %w", err)
	}
	h, err := load(ctx, db, IdempotencyKey(key))
	if err != nil {
		return IdemRecord{}, fmt.Errorf("store.LoadIdempotency: %w", err)
	}
	return IdemRecord{Ref: h["ref"], Digest: h["digest"]}, nil
}

// poisonSettings are the store's idempotency retention and quarantine
// threshold, set from the agent's config (zero: the defaults).
type poisonSettings struct {
	idemTTL     atomic.Int64 // ns
	quarantineN atomic.Int64 // failures in a row; <0: never
}

// SetIdempotencyTTL sets how long idempotency records are kept (<= 0:
// DefaultIdempotencyTTL).
func (s *Store) SetIdempotencyTTL(d time.Duration) { s.poison.idemTTL.Store(int64(d)) }

// idempotencyTTL is how long idempotency records are kept.
func (s *core) idempotencyTTL() time.Duration {
	if d := time.Duration(s.poison.idemTTL.Load()); d > 0 {
		return d
	}
	return DefaultIdempotencyTTL
}
