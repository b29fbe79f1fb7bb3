package store

import (
	"context"
	"fmt"
	"maps"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hyphae-run/hyphae/context/model"
)

// What the bridge writes for a message received from another agent: a job
// (materialised, and perhaps claimed at once by the local runner) or a
// chat or mail message, each once per (sender, ref).

// InboundTTL is how long dedupe mappings of received messages live.
const InboundTTL = 7 * 24 * time.Hour

// materialize stores the received message m on msg_in and the job j on
// queue:<type> of context ctxID, once per (sender, ref), if j's caller (the
// local actor id of the sender) holds executors or admins in the context;
// else it writes nothing and returns an ErrDenied error saying what is
// missing. The check and the writes are one script, so a grant revoked
// meanwhile cannot let a job in. It returns the local job key and whether
// this call created it (a resend of an accepted ref is answered with the
// first key, unchecked). Ids already set on m and j (the sender's, or
// from NextIDs) are used when neither key exists here, else allocated
// here (seed 000 shows one message id on both sides); a refused job changes no key of the context's
// DB, its seq:* counters included (inboundIDs).
func (s *core) materialize(ctx context.Context, ctxID uint64, sender, ref string, originCtx uint64,
	originJob string, m *model.Message, j *model.RunnerJob) (string, bool, error) {
	key, created, _, err := s.bus.MaterializeAndClaim(ctx, ctxID, sender, ref, originCtx, originJob, m, j, nil)
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
func (s *Bus) MaterializeAndClaim(ctx context.Context, ctxID uint64, sender, ref string, originCtx uint64,
	originJob string, m *model.Message, j *model.RunnerJob, spec *ClaimSpec) (key string, created bool, cl *Claim, err error) {
	db, err := s.db(ctxID)
	if err != nil {
		return "", false, nil, fmt.Errorf("store.Materialize: %w", err)
	}
	stamp(&m.CreatedAt, &m.UpdatedAt)
	stamp(&j.CreatedAt, &j.UpdatedAt)
	var q materializeCall
	var res []any
	// With the sender's ids (kept when set and free), then, when one is
	// taken here, with ids of this context's own.
	for try := 0; ; try++ {
		if m.ID == 0 || j.ID == 0 {
			if prev, err := s.inboundIDs(ctx, ctxID, sender, ref, m, j); err != nil || prev != "" {
				return prev, false, nil, err
			}
		}
		q = newMaterializeCall(ctxID, sender, ref, originCtx, originJob, m, j, spec)
		if res, err = materialize.Run(ctx, db, q.keys, q.args...).Slice(); err != nil {
			return "", false, nil, scriptErr("store.Materialize", err)
		}
		if n, _ := res[0].(int64); n != -2 {
			break
		}
		if try == 2 { // taken again: a concurrent writer keeps winning
			return "", false, nil, fmt.Errorf("store.Materialize: %s or %s: %w", q.keys[2], q.keys[4], ErrExists)
		}
		if m.ID, j.ID, err = s.freeIDs(ctx, db, m.CallerID, j.CallerID); err != nil {
			return "", false, nil, err
		}
	}
	key, created, err = materialized(ctxID, sender, j, res)
	if created {
		s.reserveLow(ctxID, "message", "job")
	}
	if err == nil && created && len(res) > 2 && res[2] == int64(1) {
		cl = q.claim(key, j)
	}
	return key, created, cl, err
}

// inboundIDs gives a received job m, j its ids without writing to the
// target DB before the role check, so a refused job leaves nothing there,
// not even a moved counter (docs/design.md, "Between agents"): ids come from the blocks
// already reserved in memory when there are some (no round trip; a
// refused job only leaves a gap), else from Redis (INCRBY seq:*, a write),
// but only once mayMaterialize, reading only, has found the caller
// granted. The materialize script checks again, atomically with its
// writes. It returns the job key of an earlier accepted copy (a resend,
// answered as the script would) or an ErrDenied error as Materialize's.
func (s *core) inboundIDs(ctx context.Context, ctxID uint64, sender, ref string, m *model.Message,
	j *model.RunnerJob) (string, error) {
	if ids, ok := s.reservedIDs(ctxID, "message", "job"); ok {
		m.ID, j.ID = ids[0], ids[1]
		return "", nil
	}
	db, err := s.db(ctxID)
	if err != nil {
		return "", fmt.Errorf("store.Materialize: %w", err)
	}
	keys := []string{InboundKey(sender, ref), ContextKey(ctxID)}
	res, err := mayMaterialize.Run(ctx, db, keys, j.CallerID, string(materializeRole)).Slice()
	if err != nil {
		return "", scriptErr("store.Materialize", err)
	}
	if ok, _ := res[0].(int64); ok != 1 {
		prev, _, err := materialized(ctxID, sender, j, res)
		return prev, err
	}
	ids, err := s.nextIDs(ctx, ctxID, "message", "job")
	if err != nil {
		return "", fmt.Errorf("store.Materialize: %w", err)
	}
	m.ID, j.ID = ids[0], ids[1]
	return "", nil
}

// mayMaterialize: see inboundIDs. Reading only, it answers what
// materialize would before writing: a resend, a refusal, or go ahead.
// KEYS[1] inbound:<sender>:<ref>, KEYS[2] the context hash.
// ARGV[1] the caller's actor id, ARGV[2] the role it needs.
// Returns {1, ""} (granted), {0, existing job key} or {-1, "context" or
// "role"}, as materialize.
var mayMaterialize = newScript("mayMaterialize", luaHasRole, `
local prev = redis.call('GET', KEYS[1])
if prev then return {0, prev} end
local granted = hasRole(KEYS[2], tonumber(ARGV[1]), ARGV[2])
if granted == nil then return {-1, 'context'} end
if not granted then return {-1, 'role'} end
return {1, ''}
`)

// materialize: see MaterializeAndClaim. It stores a received job message
// and its job, enqueues the job and records the dedupe mappings — unless
// the sender's ref was seen: then it returns the existing local job key —
// once the job's caller is found to hold the role in the context (hasRole,
// the model's rule); else nothing is written. With a lease owner given
// (ARGV[4]), it claims the job for that runner instead of enqueueing it
// when the job's queue is among the runner's (KEYS[11..]) and they are all
// empty, as claimJob would have, taking this very job: started, on
// processing:<runner>, leased for attempt 1. So no queue push wakes a loop
// to find nothing.
// KEYS[1] inbound:<sender>:<ref>, KEYS[2] inbound_job:<…>, KEYS[3] message
// key, KEYS[4] msg_in, KEYS[5] job key, KEYS[6] queue:<type>, KEYS[7]
// the context hash, KEYS[8] processing:<runner>, KEYS[9] leases, KEYS[10]
// lease_owners, KEYS[11..] the runner's queues (none: no claim).
// ARGV[1] TTL seconds of the mappings, ARGV[2] the caller's actor id,
// ARGV[3] the role it needs, ARGV[4] the lease_owners value "1 <runner>"
// ("" = no claim), ARGV[5] lease expiry (unix ms), ARGV[6] now (unix s),
// ARGV[7] the number n of message field pairs, ARGV[8 .. 7+2n] message
// pairs, the rest job pairs.
// Returns {1, job key, 1 when claimed else 0}, {0, existing job key},
// {-1, "context" or "role": what is missing} or {-2, "taken"}: the message
// or job key exists (the sender's ids are in use here), nothing written.
var materialize = newScript("materialize", luaHasRole, luaLease, luaTimers, luaTimeline, luaJobIndex, `
local prev = redis.call('GET', KEYS[1])
if prev then return {0, prev} end
local granted = hasRole(KEYS[7], tonumber(ARGV[2]), ARGV[3])
if granted == nil then return {-1, 'context'} end
if not granted then return {-1, 'role'} end
if redis.call('EXISTS', KEYS[3], KEYS[5]) > 0 then return {-2, 'taken'} end
local function claimable()
  -- a job with run_at ahead is queued: the runner's claim holds it back (claimJob)
  if ARGV[4] == '' or notYet(KEYS[5], tonumber(ARGV[6]) * 1000) then return false end
  -- a job with a concurrency key is queued: the claim's gate orders it (keyedHold)
  if (redis.call('HGET', KEYS[5], 'concurrency_key') or '') ~= '' then return false end
  local served = false
  for i = 11, #KEYS do
    if redis.call('LLEN', KEYS[i]) > 0 then return false end
    if KEYS[i] == KEYS[6] then served = true end
  end
  return served
end
local n = tonumber(ARGV[7])
redis.call('HSET', KEYS[3], unpack(ARGV, 8, 7 + 2 * n))
redis.call('LPUSH', KEYS[4], KEYS[3])
redis.call('HSET', KEYS[5], unpack(ARGV, 8 + 2 * n))
indexJob(KEYS[5])
local claimed = 0
if claimable() then
  redis.call('HSET', KEYS[5], 'attempt', '1', 'status', 'started', 'updated_at', ARGV[6], 'lease', ARGV[4])
  redis.call('LPUSH', KEYS[8], KEYS[5])
  redis.call('ZADD', KEYS[9], ARGV[5], KEYS[5])
  timeline(KEYS[5], 'started', '')
  claimed = 1
else
  redis.call('LPUSH', KEYS[6], KEYS[5])
end
redis.call('SET', KEYS[1], KEYS[5], 'EX', tonumber(ARGV[1]))
redis.call('SET', KEYS[2], KEYS[5], 'EX', tonumber(ARGV[1]))
return {1, KEYS[5], claimed}
`)

// materializeRole is the role a received job's caller needs.
const materializeRole = model.RoleExecutor

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
	q.args = append([]any{int64(InboundTTL / time.Second), j.CallerID, string(materializeRole),
		owner, q.expires.UnixMilli(), q.now.Unix(), len(mp) / 2}, mp...)
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
		return "", false, fmt.Errorf("%w: actor %d (%s) lacks role %s in context %d", ErrDenied, j.CallerID, sender, materializeRole, ctxID)
	}
	return key, created == 1, nil
}

// receiveMessage stores message m received from sender under its ref on
// msg_in of context ctxID, once: a resend of the same ref (its ack was
// lost) stores nothing and reports created false.
func (s *core) receiveMessage(ctx context.Context, ctxID uint64, sender, ref string, m *model.Message) (bool, error) {
	db, err := s.db(ctxID)
	if err != nil {
		return false, fmt.Errorf("store.ReceiveMessage: %w", err)
	}
	if m.ID == 0 {
		ids, err := s.nextIDs(ctx, ctxID, "message")
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

// receiveMessage: see ReceiveMessage.
// KEYS[1] inbound:<sender>:<ref>, KEYS[2] message key, KEYS[3] msg_in.
// ARGV[1] TTL seconds of the mapping, ARGV[2..] message pairs.
// Returns 1 when stored, 0 for a resend (nothing written).
var receiveMessage = newScript("receiveMessage", `
if redis.call('GET', KEYS[1]) then return 0 end
redis.call('HSET', KEYS[2], unpack(ARGV, 2))
redis.call('LPUSH', KEYS[3], KEYS[2])
redis.call('SET', KEYS[1], KEYS[2], 'EX', tonumber(ARGV[1]))
return 1
`)

// freeIDs are a message id and a job id of this context's own whose keys
// (for callers mc and jc) do not exist: a kept sender's id may sit where
// the context's counters would hand out next (docs/design.md, "Ids across
// the bus"), so the counters move past taken keys. The ids come from the
// counters directly, not from the blocks reserved in memory, which may
// hold such ids too.
func (s *core) freeIDs(ctx context.Context, db *redis.Client, mc, jc uint64) (uint64, uint64, error) {
	keys := []string{SeqKey("message"), SeqKey("job")}
	res, err := freeIDs.Run(ctx, db, keys, MessageKey(mc, 0)[:len(MessageKey(mc, 0))-1],
		JobKey(jc, 0)[:len(JobKey(jc, 0))-1]).Int64Slice()
	if err != nil {
		return 0, 0, scriptErr("store.Materialize", err)
	}
	return uint64(res[0]), uint64(res[1]), nil
}

// freeIDs: see core.freeIDs.
// KEYS[1] seq:message, KEYS[2] seq:job. ARGV[1] the message key prefix
// ("message:<caller>:"), ARGV[2] the job key prefix ("job:<caller>:").
// Returns {message id, job id}, each the next counter value whose key
// does not exist (at most 100000 steps).
var freeIDs = newScript("freeIDs", `
local out = {}
for i = 1, 2 do
  local id = redis.call('INCR', KEYS[i])
  local n = 0
  while redis.call('EXISTS', ARGV[i] .. id) == 1 and n < 100000 do
    id = redis.call('INCR', KEYS[i])
    n = n + 1
  end
  out[i] = id
end
return out
`)
