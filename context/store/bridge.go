package store

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hyphae-run/hyphae/context/model"
)

// Keys of the bridge (our additions, per context DB unless noted).

// OutboxKey is a ZSET of message keys awaiting an ack; score = unix ms of
// the next (re)send.
const OutboxKey = "outbox"

// AwaitingKey is a ZSET of acknowledged job message keys whose result has
// not come back; score = unix ms after which the job is failed.
const AwaitingKey = "awaiting_result"

// MsgOutProcessingKey holds msg_out entries taken but not yet in the outbox.
const MsgOutProcessingKey = "msg_out:processing"

// RemoteDoneProcessingKey holds remote_done entries being sent home.
const RemoteDoneProcessingKey = "remote_done:processing"

// SeenKey marks a bus envelope as received (DB 0), for replay detection.
func SeenKey(replayKey string) string { return "seen:" + replayKey }

// InboundKey maps a sender's message reference to the local job key it
// produced: inbound:<sender peer>:<ref>.
func InboundKey(sender, ref string) string { return "inbound:" + sender + ":" + ref }

// InboundJobKey maps a sender's origin job to the local job key:
// inbound_job:<sender peer>:<origin ctx>:<origin job key>.
func InboundJobKey(sender string, originCtx uint64, originJob string) string {
	return "inbound_job:" + sender + ":" + u(originCtx) + ":" + originJob
}

// MarkSeen records a bus envelope id for ttl; it reports false when it was
// already seen (a replay).
func (s *Store) MarkSeen(ctx context.Context, replayKey string, ttl time.Duration) (bool, error) {
	ok, err := s.global.SetNX(ctx, SeenKey(replayKey), 1, ttl).Result()
	if err != nil {
		return false, fmt.Errorf("store.MarkSeen: %w", err)
	}
	return ok, nil
}

// ReplayHorizonKey (DB 0) holds unix ms up to which this agent's bridge may
// have accepted envelopes: it is kept a few seconds ahead of the clock
// while the bridge runs. Envelopes stamped later than it plus the skew
// window cannot have been seen by an earlier run.
const ReplayHorizonKey = "replay_horizon"

// ReplayHorizon reads ReplayHorizonKey; the zero time when it was never set.
func (s *Store) ReplayHorizon(ctx context.Context) (time.Time, error) {
	ms, err := s.global.Get(ctx, ReplayHorizonKey).Int64()
	if errors.Is(err, redis.Nil) {
		return time.Time{}, nil
	}
	if err != nil {
		return time.Time{}, fmt.Errorf("store.ReplayHorizon: %w", err)
	}
	return time.UnixMilli(ms), nil
}

// SetReplayHorizon moves ReplayHorizonKey forward to t (never back).
func (s *Store) SetReplayHorizon(ctx context.Context, t time.Time) error {
	err := setMax.Run(ctx, s.global, []string{ReplayHorizonKey}, t.UnixMilli()).Err()
	return scriptErr("store.SetReplayHorizon", err)
}

// setMax sets an integer key to ARGV[1] unless it already holds more.
// KEYS[1] the key. ARGV[1] the new value.
var setMax = redis.NewScript(`
local cur = tonumber(redis.call('GET', KEYS[1]) or '0') or 0
if tonumber(ARGV[1]) > cur then redis.call('SET', KEYS[1], ARGV[1]) end
return 1
`)

// RecordSeen records bus envelope ids as MarkSeen does, without asking
// whether they were new (the caller knows), in one round trip.
func (s *Store) RecordSeen(ctx context.Context, replayKeys []string, ttl time.Duration) error {
	_, err := s.global.Pipelined(ctx, func(p redis.Pipeliner) error {
		for _, k := range replayKeys {
			p.Set(ctx, SeenKey(k), 1, ttl)
		}
		return nil
	})
	return wrap("store.RecordSeen", err)
}

// materialize stores a received job message and its job, enqueues the job
// and records the dedupe mappings — unless the sender's ref was seen, then
// it returns the existing local job key — once the job's caller is found
// to hold executors or admins in the context (else {-1, what is missing}:
// "context" or "role"; nothing is written). With a lease owner given
// (ARGV[4]), it claims the job for that runner instead of enqueueing it
// when the job's queue is among the runner's (KEYS[11..]) and they are all
// empty, as claimJob would have, taking this very job: started, on
// processing:<runner>, leased for attempt 1. So no queue push wakes a loop
// to find nothing.
// KEYS[1] inbound:<sender>:<ref>, KEYS[2] inbound_job:<…>, KEYS[3] message
// key, KEYS[4] msg_in, KEYS[5] job key, KEYS[6] queue:<type>, KEYS[7]
// the context hash, KEYS[8] processing:<runner>, KEYS[9] leases, KEYS[10]
// lease_owners, KEYS[11..] the runner's queues (none: no claim).
// ARGV[1] TTL seconds of the mappings, ARGV[2] number of message field
// pairs (n), ARGV[3] the caller's actor id, ARGV[4] the lease_owners
// value "1 <runner>" ("" = no claim), ARGV[5] lease expiry (unix ms),
// ARGV[6] now (unix s), ARGV[7 .. 6+2n] message pairs, the rest job pairs.
// Returns {1, job key, 1 when claimed else 0}, {0, existing job key} or
// {-1, reason}.
var materialize = redis.NewScript(luaTake + `
local prev = redis.call('GET', KEYS[1])
if prev then return {0, prev} end
local ctx = redis.call('HMGET', KEYS[7], 'admins', 'executors')
if not ctx[1] and not ctx[2] and redis.call('EXISTS', KEYS[7]) == 0 then return {-1, 'context'} end
local me = tonumber(ARGV[3])
local function holds(list)
  if not list then return false end
  local ok, ids = pcall(cjson.decode, list)
  if not ok or type(ids) ~= 'table' then return false end
  for _, x in ipairs(ids) do
    if tonumber(x) == me then return true end
  end
  return false
end
if not holds(ctx[1]) and not holds(ctx[2]) then return {-1, 'role'} end
local function claimable()
  if ARGV[4] == '' then return false end
  local served = false
  for i = 11, #KEYS do
    if redis.call('LLEN', KEYS[i]) > 0 then return false end
    if KEYS[i] == KEYS[6] then served = true end
  end
  return served
end
local n = tonumber(ARGV[2])
redis.call('HSET', KEYS[3], unpack(ARGV, 7, 6 + 2 * n))
redis.call('LPUSH', KEYS[4], KEYS[3])
redis.call('HSET', KEYS[5], unpack(ARGV, 7 + 2 * n))
local claimed = 0
if claimable() then
  redis.call('HSET', KEYS[5], 'attempt', '1', 'status', 'started', 'updated_at', ARGV[6])
  take(KEYS[8], KEYS[9], KEYS[10], KEYS[5], ARGV[5], ARGV[4])
  claimed = 1
else
  redis.call('LPUSH', KEYS[6], KEYS[5])
end
redis.call('SET', KEYS[1], KEYS[5], 'EX', tonumber(ARGV[1]))
redis.call('SET', KEYS[2], KEYS[5], 'EX', tonumber(ARGV[1]))
return {1, KEYS[5], claimed}
`)

// InboundTTL is how long dedupe mappings of received messages live.
const InboundTTL = 7 * 24 * time.Hour

// Materialize stores the received message m on msg_in and the job j on
// queue:<type> of context ctxID, once per (sender, ref), if j's caller (the
// local actor id of the sender) holds executors or admins in the context;
// else it writes nothing and returns an ErrDenied error saying what is
// missing. The check and the writes are one script, so a grant revoked
// meanwhile cannot let a job in. It returns the local job key and whether
// this call created it (a resend of an accepted ref is answered with the
// first key, unchecked). Ids already set on m and j (from NextIDs) are
// used, else allocated here.
func (s *Store) Materialize(ctx context.Context, ctxID uint64, sender, ref string, originCtx uint64,
	originJob string, m *model.Message, j *model.RunnerJob) (string, bool, error) {
	key, created, _, err := s.MaterializeAndClaim(ctx, ctxID, sender, ref, originCtx, originJob, m, j, nil)
	return key, created, err
}

// ClaimSpec asks MaterializeAndClaim to claim the job for a runner in the
// same script, as ClaimJob would when the runner's queues are empty.
type ClaimSpec struct {
	RunnerID string
	Types    []string // the runner's types, in the order to try
	Lease    time.Duration
}

// MaterializeAndClaim is Materialize that, given spec, also claims the job
// for spec's runner in the same script when the job's type is one of the
// runner's and the runner's queues are empty: then the claim is this very
// job, started and leased for attempt 1, as ClaimJob would have taken it,
// and it was never on a queue. cl is nil when it was not claimed (a
// backlog, a type the runner does not serve, a refused or resent job): the
// job is then queued as by Materialize.
func (s *Store) MaterializeAndClaim(ctx context.Context, ctxID uint64, sender, ref string, originCtx uint64,
	originJob string, m *model.Message, j *model.RunnerJob, spec *ClaimSpec) (key string, created bool, cl *Claim, err error) {
	db, err := s.DB(ctxID)
	if err != nil {
		return "", false, nil, fmt.Errorf("store.Materialize: %w", err)
	}
	if m.ID == 0 || j.ID == 0 {
		ids, err := s.NextIDs(ctx, ctxID, "message", "job")
		if err != nil {
			return "", false, nil, fmt.Errorf("store.Materialize: %w", err)
		}
		m.ID, j.ID = ids[0], ids[1]
	}
	stamp(&m.CreatedAt, &m.UpdatedAt)
	stamp(&j.CreatedAt, &j.UpdatedAt)
	q := newMaterializeCall(ctxID, sender, ref, originCtx, originJob, m, j, spec)
	res, err := materialize.Run(ctx, db, q.keys, q.args...).Slice()
	if err != nil {
		return "", false, nil, scriptErr("store.Materialize", err)
	}
	key, created, err = materialized(ctxID, sender, j, res)
	if err == nil && created && len(res) > 2 && res[2] == int64(1) {
		cl = q.claim(key, j)
	}
	return key, created, cl, err
}

// materializeCall is one run of the materialize script.
type materializeCall struct {
	keys    []string
	args    []any
	job     model.Hash // the job's fields as written
	spec    *ClaimSpec
	now     time.Time
	expires time.Time
}

func newMaterializeCall(ctxID uint64, sender, ref string, originCtx uint64, originJob string,
	m *model.Message, j *model.RunnerJob, spec *ClaimSpec) materializeCall {
	q := materializeCall{spec: spec, now: time.Now(), job: j.ToHash()}
	mp, jp := pairs(m.ToHash()), pairs(q.job)
	q.keys = []string{InboundKey(sender, ref), InboundJobKey(sender, originCtx, originJob),
		MessageKey(m.CallerID, m.ID), MsgInKey, JobKey(j.CallerID, j.ID), QueueKey(j.ScriptType), ContextKey(ctxID),
		ProcessingKey(""), LeasesKey, LeaseOwnersKey}
	owner := ""
	if spec != nil {
		owner, q.expires = leaseOwner(1, spec.RunnerID), q.now.Add(spec.Lease)
		q.keys[7] = ProcessingKey(spec.RunnerID)
		for _, t := range spec.Types {
			q.keys = append(q.keys, QueueKey(t))
		}
	}
	q.args = append([]any{int64(InboundTTL / time.Second), len(mp) / 2, j.CallerID,
		owner, q.expires.UnixMilli(), q.now.Unix()}, mp...)
	q.args = append(q.args, jp...)
	return q
}

// claim is the Claim of job j, materialised at key and claimed by the
// script: the fields written, as ClaimJob would have returned them.
func (q materializeCall) claim(key string, j *model.RunnerJob) *Claim {
	h := maps.Clone(q.job)
	h["attempt"], h["status"] = "1", string(model.JobStarted)
	h["updated_at"] = strconv.FormatInt(q.now.Unix(), 10)
	return &Claim{Type: j.ScriptType, JobKey: key, Verdict: VerdictRun, Attempt: 1, Hash: h,
		Lease: Lease{JobKey: key, Owner: q.spec.RunnerID, Attempt: 1, Expires: q.expires}}
}

// materialized decodes the materialize script's reply.
func materialized(ctxID uint64, sender string, j *model.RunnerJob, res []any) (string, bool, error) {
	created, _ := res[0].(int64)
	key, _ := res[1].(string)
	switch {
	case created == -1 && key == "context":
		return "", false, fmt.Errorf("%w: context %d: %s: %w", ErrDenied, ctxID, ContextKey(ctxID), ErrNotFound)
	case created == -1:
		return "", false, fmt.Errorf("%w: actor %d (%s) lacks role %s in context %d", ErrDenied, j.CallerID, sender, model.RoleExecutor, ctxID)
	}
	return key, created == 1, nil
}

// receiveMessage stores a received chat or mail message and pushes it on
// msg_in, once per (sender, ref).
// KEYS[1] inbound:<sender>:<ref>, KEYS[2] message key, KEYS[3] msg_in.
// ARGV[1] TTL seconds of the mapping, ARGV[2..] message pairs.
var receiveMessage = redis.NewScript(`
if redis.call('GET', KEYS[1]) then return 0 end
redis.call('HSET', KEYS[2], unpack(ARGV, 2))
redis.call('LPUSH', KEYS[3], KEYS[2])
redis.call('SET', KEYS[1], KEYS[2], 'EX', tonumber(ARGV[1]))
return 1
`)

// ReceiveMessage stores message m received from sender under its ref on
// msg_in of context ctxID, once: a resend of the same ref (its ack was
// lost) stores nothing and reports created false.
func (s *Store) ReceiveMessage(ctx context.Context, ctxID uint64, sender, ref string, m *model.Message) (bool, error) {
	db, err := s.DB(ctxID)
	if err != nil {
		return false, fmt.Errorf("store.ReceiveMessage: %w", err)
	}
	if m.ID == 0 {
		ids, err := s.NextIDs(ctx, ctxID, "message")
		if err != nil {
			return false, fmt.Errorf("store.ReceiveMessage: %w", err)
		}
		m.ID = ids[0]
	}
	stamp(&m.CreatedAt, &m.UpdatedAt)
	args := append([]any{int64(InboundTTL / time.Second)}, pairs(m.ToHash())...)
	keys := []string{InboundKey(sender, ref), MessageKey(m.CallerID, m.ID), MsgInKey}
	n, err := receiveMessage.Run(ctx, db, keys, args...).Int()
	if err != nil {
		return false, scriptErr("store.ReceiveMessage", err)
	}
	return n == 1, nil
}

// InboundJob finds the local job made from a sender's origin job.
func (s *Store) InboundJob(ctx context.Context, ctxID uint64, sender string, originCtx uint64, originJob string) (string, error) {
	db, err := s.DB(ctxID)
	if err != nil {
		return "", err
	}
	k, err := db.Get(ctx, InboundJobKey(sender, originCtx, originJob)).Result()
	if errors.Is(err, redis.Nil) {
		return "", fmt.Errorf("store.InboundJob: %w", ErrNotFound)
	}
	return k, err
}

// TakeMsgOut blocks up to wait for a key on msg_out and moves it to the
// processing list; "" when none arrived.
func (s *Store) TakeMsgOut(ctx context.Context, ctxID uint64, list, processing string, wait time.Duration) (string, error) {
	db, err := s.DB(ctxID)
	if err != nil {
		return "", err
	}
	k, err := db.BLMove(ctx, list, processing, "RIGHT", "LEFT", wait).Result()
	if errors.Is(err, redis.Nil) {
		return "", nil
	}
	return k, err
}

// Requeue moves every entry of processing back onto list (recovery).
func (s *Store) Requeue(ctx context.Context, ctxID uint64, processing, list string) (int, error) {
	db, err := s.DB(ctxID)
	if err != nil {
		return 0, err
	}
	n := 0
	for {
		err := db.LMove(ctx, processing, list, "RIGHT", "RIGHT").Err()
		if errors.Is(err, redis.Nil) {
			return n, nil
		}
		if err != nil {
			return n, err
		}
		n++
	}
}

// Done removes key from a processing list.
func (s *Store) Done(ctx context.Context, ctxID uint64, processing, key string) error {
	db, err := s.DB(ctxID)
	if err != nil {
		return err
	}
	return db.LRem(ctx, processing, 1, key).Err()
}

// OutboxDue returns message keys due at now.
func (s *Store) OutboxDue(ctx context.Context, ctxID uint64, now time.Time, max int64) ([]string, error) {
	return s.due(ctx, ctxID, OutboxKey, now, max)
}

// due returns up to max members of the sorted set key (scored in unix ms)
// whose time has come at now, earliest first.
func (s *Store) due(ctx context.Context, ctxID uint64, key string, now time.Time, max int64) ([]string, error) {
	db, err := s.DB(ctxID)
	if err != nil {
		return nil, err
	}
	return db.ZRangeArgs(ctx, redis.ZRangeArgs{Key: key, ByScore: true, Start: "-inf",
		Stop: strconv.FormatInt(now.UnixMilli(), 10), Count: max}).Result()
}

// OutboxRemove drops key from the outbox; it reports whether it was there.
func (s *Store) OutboxRemove(ctx context.Context, ctxID uint64, key string) (bool, error) {
	db, err := s.DB(ctxID)
	if err != nil {
		return false, err
	}
	n, err := db.ZRem(ctx, OutboxKey, key).Result()
	return n > 0, err
}

// OutboxSize counts messages awaiting an ack in a context.
func (s *Store) OutboxSize(ctx context.Context, ctxID uint64) (int64, error) {
	db, err := s.DB(ctxID)
	if err != nil {
		return 0, err
	}
	return db.ZCard(ctx, OutboxKey).Result()
}

// Fields reads named fields of a hash ("" for missing ones).
func (s *Store) Fields(ctx context.Context, ctxID uint64, key string, names ...string) ([]string, error) {
	db, err := s.DB(ctxID)
	if err != nil {
		return nil, err
	}
	vals, err := db.HMGet(ctx, key, names...).Result()
	if err != nil {
		return nil, err
	}
	out := make([]string, len(vals))
	for i, v := range vals {
		if sv, ok := v.(string); ok {
			out[i] = sv
		}
	}
	return out, nil
}

// AwaitAdd records that message key's result is due by t.
func (s *Store) AwaitAdd(ctx context.Context, ctxID uint64, key string, t time.Time) error {
	db, err := s.DB(ctxID)
	if err != nil {
		return err
	}
	return db.ZAdd(ctx, AwaitingKey, redis.Z{Score: float64(t.UnixMilli()), Member: key}).Err()
}

// AwaitDue returns message keys whose result is overdue at now.
func (s *Store) AwaitDue(ctx context.Context, ctxID uint64, now time.Time, max int64) ([]string, error) {
	return s.due(ctx, ctxID, AwaitingKey, now, max)
}

// AwaitList returns up to max message keys awaiting a result, soonest
// deadline first.
func (s *Store) AwaitList(ctx context.Context, ctxID uint64, max int64) ([]string, error) {
	db, err := s.DB(ctxID)
	if err != nil {
		return nil, err
	}
	return db.ZRange(ctx, AwaitingKey, 0, max-1).Result()
}

// AwaitRemove forgets message key's pending result.
func (s *Store) AwaitRemove(ctx context.Context, ctxID uint64, key string) error {
	db, err := s.DB(ctxID)
	if err != nil {
		return err
	}
	return db.ZRem(ctx, AwaitingKey, key).Err()
}
