package store

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hyphae-run/hyphae/context/model"
)

// Verdict says what ClaimJob found.
type Verdict string

// Claim verdicts.
const (
	VerdictRun      Verdict = "run"      // leased and marked started: run it
	VerdictStopped  Verdict = "stopped"  // leased; a stop marker covers it: end it "stopped"
	VerdictRejected Verdict = "rejected" // leased, untouched (ClaimReject mode)
	VerdictDead     Verdict = "dead"     // unusable and left as it is (missing, not a hash, ended); in dead_letter, no lease
	VerdictInvalid  Verdict = "invalid"  // a bad status or attempt: ended error with the reason, in dead_letter, no lease
)

// Claim is a job taken from a queue.
type Claim struct {
	Type    string // script type of the queue it came from
	JobKey  string
	Verdict Verdict
	Attempt int64      // the attempt the lease is for
	Left    int64      // 0 when the queues tried are empty after this one, else > 0
	Hash    model.Hash // the job's fields as taken (status already "started" for VerdictRun)
	Lease   Lease
	Reason  string // VerdictDead and VerdictInvalid: why the job cannot be run
}

// ClaimJob takes the oldest job of the first non-empty queue:<type> (types
// in the order given) into processing:<runnerID> with a lease, atomically.
// With reject set the job is leased but not marked started (the caller ends
// it with an error). It returns nil, nil when all the queues are empty.
//
// An entry that is no usable job is dead-lettered with the reason in the
// same step, never leased: a key that is missing, not a hash or an ended
// job is left as it is (VerdictDead); a job hash whose status or attempt
// is no valid value is ended error with the reason, as any end of a job
// is announced (its reply:<key> pushed, so a client's BLPOP returns),
// and its other fields are left as they are (VerdictInvalid).
func (s *Store) ClaimJob(ctx context.Context, ctxID uint64, runnerID string, types []string,
	lease time.Duration, reject bool) (*Claim, error) {
	db, err := s.DB(ctxID)
	if err != nil {
		return nil, fmt.Errorf("store.ClaimJob: %w", err)
	}
	q := newClaimCall(ctxID, runnerID, types, lease, reject)
	c, err := q.result(claimJob.Run(ctx, db, q.keys, q.args...))
	if err == nil {
		c, err = s.screenClaim(ctx, db, c) // idempotency keys, quarantine (quarantine.go)
	}
	if err != nil {
		return nil, fmt.Errorf("store.ClaimJob: %w", err)
	}
	return c, nil
}

// luaStatusList defines statusList, the job statuses a job hash may hold
// (model.JobMoves), for the reason given when it holds another.
var luaStatusList = func() string {
	var sts []string
	for st := range model.JobMoves() {
		if st != "" {
			sts = append(sts, string(st))
		}
	}
	sort.Strings(sts)
	return fmt.Sprintf("local statusList = %q\n", strings.Join(sts, ", "))
}()

// claimJob: see ClaimJob. It takes the oldest job from the first
// non-empty queue, moves it into the runner's processing list and leases
// it, in one step.
// KEYS[1] processing:<runner>, KEYS[2] leases, KEYS[3] lease_owners,
// KEYS[4] dead_letter, KEYS[5] jobs_done, KEYS[6] remote_done,
// KEYS[7..] queue:<type> in the order to try.
// ARGV[1] runner id, ARGV[2] lease expiry (unix ms), ARGV[3] now (unix s),
// ARGV[4] "run" (mark it started, and set script_type from the queue when
// the hash has none) or "reject" (lease it only); either way a missing
// attempt field is set to 1,
// ARGV[5] dead-letter list cap, ARGV[6] reply list TTL (s), ARGV[7] the
// reply list's key prefix (ReplyKey of ""), ARGV[8] now (unix ms), ARGV[9]
// the context id. A popped job whose run_at is still ahead goes to timers
// instead (deferEarly, luaTimers) and the next one is popped; so does one
// whose dependends or prerequisites are not met, parked, or ended error
// when they cannot be (depsHold, jobs_deps.go), and one
// whose concurrency key is full, parked (keyedHold, queue_keyed_lua.go).
// Before popping, it settles the jobs whose prerequisite re-check time
// has come (recheckPrereqs, jobs_deps.go).
// It also reads and writes the popped job's hash and reply list and reads
// stop:<job key>, whose names are known only after the pop (contexts are
// DBs, so the contract is single-instance Redis anyway).
// Returns nil when every queue is empty, else {queue index (1 = KEYS[7]),
// job key, verdict, attempt, jobs left (0 when all the queues are empty,
// else the length of the queue taken from, or of the others), then
// field, value, ... or, for dead and invalid, the reason}; verdict is
// run, stopped (a stop marker covers this attempt), rejected, dead
// (unusable, left as it is) or invalid (ended error): both of these
// already in dead_letter and out of the processing list, with no lease.
var claimJob = newScript("claimJob", luaStartable, luaLease, luaAnnounceEnd, luaStatusList, luaTimers, luaTimeline, luaKeyedGate, luaDepsGate, `
local first = 7
recheckPrereqs(ARGV[8], ARGV[7], KEYS[5], KEYS[6], ARGV[6])
-- remaining says whether jobs are left: the length of queue i when it has
-- some (the common case: one LLEN), else the sum over the other queues.
local function remaining(i)
  local n = redis.call('LLEN', KEYS[i])
  if n > 0 then return n end
  for j = first, #KEYS do
    if j ~= i then n = n + redis.call('LLEN', KEYS[j]) end
  end
  return n
end
local function dead(key, q, reason, class)
  redis.call('LREM', KEYS[1], 1, key)
  redis.call('LPUSH', KEYS[4], cjson.encode({key = key, queue = q, reason = reason,
    runner = ARGV[1], at = tonumber(ARGV[3]), class = class}))
  redis.call('LTRIM', KEYS[4], 0, tonumber(ARGV[5]) - 1)
end
-- check returns the attempt to run, or nil, why the job is unusable and
-- whether to end it (a job hash whose own fields are wrong; a key that is
-- missing, of another type or an ended job is not touched). h is HGETALL's
-- reply, an error reply when the key is not a hash.
local function check(key, h)
  if h.err then
    return nil, 'invalid job: ' .. key .. ' is a ' .. redis.call('TYPE', key).ok .. ', not a job hash'
  end
  if #h == 0 then return nil, 'job hash ' .. key .. ' does not exist' end
  local f = {}
  for j = 1, #h, 2 do f[h[j]] = h[j + 1] end
  local st, araw = f['status'] or '', f['attempt'] or ''
  local ok = startable(st)
  if ok == nil then return nil, 'invalid job: status "' .. st .. '" is not one of ' .. statusList, true end
  if not ok then return nil, 'job is already ' .. st .. '; re-dispatch it as a new attempt' end
  local att = 1
  if araw ~= '' then att = tonumber(araw) end
  if att == nil or att ~= math.floor(att) then
    return nil, 'invalid job: attempt "' .. araw .. '" is not a whole number', true
  end
  return math.max(att, 1), nil, false, (f['script_type'] or '') == ''
end
for i = first, #KEYS do
  local key = redis.call('LMOVE', KEYS[i], KEYS[1], 'RIGHT', 'LEFT')
  while key and (deferEarly(key, KEYS[i], KEYS[1], ARGV[8], ARGV[9]) or
      depsHold(key, KEYS[i], KEYS[1], ARGV[8], ARGV[3], ARGV[7], KEYS[5], KEYS[6], ARGV[6]) or
      keyedHold(key, KEYS[i], KEYS[1])) do
    key = redis.call('LMOVE', KEYS[i], KEYS[1], 'RIGHT', 'LEFT')
  end
  if key then
    local h = redis.pcall('HGETALL', key)
    local att, why, ends, untyped = check(key, h)
    if not att then
      local verdict, class = 'dead', 'unusable'
      if ends then
        class = 'invalid'
        verdict = 'invalid'
        redis.call('HSET', key, 'status', 'error', 'error', why, 'updated_at', ARGV[3])
        announceEnd(key, ARGV[7] .. key, KEYS[5], KEYS[6], 'error', ARGV[6])
        timeline(key, 'error', why)
      end
      dead(key, KEYS[i], why, class)
      return {i - first + 1, key, verdict, '0', remaining(i), why}
    end
    local verdict = 'run'
    local stop = redis.call('GET', 'stop:' .. key)
    if stop and (stop == '0' or (tonumber(stop) or 0) >= att) then
      verdict = 'stopped'
    elseif ARGV[4] == 'reject' then
      verdict = 'rejected'
    end
    if verdict ~= 'run' then
      redis.call('HSET', key, 'attempt', tostring(att))
    elseif untyped then
      redis.call('HSET', key, 'attempt', tostring(att), 'status', 'started', 'updated_at', ARGV[3],
        'script_type', string.sub(KEYS[i], 7))
    else
      redis.call('HSET', key, 'attempt', tostring(att), 'status', 'started', 'updated_at', ARGV[3])
    end
    if verdict == 'run' then timeline(key, 'started', ARGV[1]) end
    lease(KEYS[2], KEYS[3], key, ARGV[2], tostring(att) .. ' ' .. ARGV[1])
    local out = {i - first + 1, key, verdict, tostring(att), remaining(i)}
    for j = 1, #h do out[#out + 1] = h[j] end
    return out
  end
end
return nil
`)

// claimCall is one run of the claimJob script: its KEYS and ARGV, and what
// decoding the reply needs.
type claimCall struct {
	keys     []string
	args     []any
	types    []string
	runnerID string
	now      time.Time
	expires  time.Time
}

func newClaimCall(ctxID uint64, runnerID string, types []string, lease time.Duration, reject bool) claimCall {
	keys := []string{ProcessingKey(runnerID), LeasesKey, LeaseOwnersKey, DeadLetterKey, JobsDoneKey, RemoteDoneKey}
	for _, t := range types {
		keys = append(keys, QueueKey(t))
	}
	mode, ts := "run", time.Now()
	if reject {
		mode = "reject"
	}
	exp := ts.Add(lease)
	args := []any{runnerID, exp.UnixMilli(), ts.Unix(), mode, DeadLetterCap,
		int64(ReplyTTL / time.Second), ReplyKey(""), ts.UnixMilli(), ctxID}
	return claimCall{keys: keys, args: args, types: types, runnerID: runnerID, now: ts, expires: exp}
}

// result decodes the script's reply: nil, nil when the queues were empty.
func (q claimCall) result(cmd *redis.Cmd) (*Claim, error) {
	res, err := cmd.Slice()
	if errors.Is(err, redis.Nil) {
		return nil, nil
	}
	if err != nil {
		return nil, scriptErr("claim", err)
	}
	c, err := decodeClaim(res, q.types, q.now.Unix())
	if err != nil {
		return nil, err
	}
	c.Lease = Lease{JobKey: c.JobKey, Owner: q.runnerID, Attempt: c.Attempt, Expires: q.expires}
	return c, nil
}

func decodeClaim(res []any, types []string, now int64) (*Claim, error) {
	if len(res) < 5 {
		return nil, fmt.Errorf("claim reply too short: %v", res)
	}
	idx, _ := res[0].(int64)
	if idx < 1 || int(idx) > len(types) {
		return nil, fmt.Errorf("claim reply: bad queue index %v", res[0])
	}
	c := &Claim{Type: types[idx-1], Hash: model.Hash{}}
	c.JobKey, _ = res[1].(string)
	v, _ := res[2].(string)
	c.Verdict = Verdict(v)
	a, _ := res[3].(string)
	c.Attempt, _ = strconv.ParseInt(a, 10, 64)
	c.Left, _ = res[4].(int64)
	if c.Verdict == VerdictDead || c.Verdict == VerdictInvalid {
		if len(res) > 5 {
			c.Reason, _ = res[5].(string)
		}
		return c, nil
	}
	for i := 5; i+1 < len(res); i += 2 {
		f, _ := res[i].(string)
		val, _ := res[i+1].(string)
		c.Hash[f] = val
	}
	c.Hash["attempt"] = a
	if c.Verdict == VerdictRun {
		c.Hash["status"] = string(model.JobStarted)
		c.Hash["updated_at"] = strconv.FormatInt(now, 10)
		if c.Hash["script_type"] == "" {
			c.Hash["script_type"] = c.Type
		}
	}
	return c, nil
}

// TakeQueued moves the named job out of queue:<scriptType> into
// processing:<runnerID> with a lease, if it is still queued there. It
// reports whether it was.
func (s *Store) TakeQueued(ctx context.Context, ctxID uint64, jobKey, scriptType, runnerID string,
	attempt int64, lease time.Duration) (Lease, bool, error) {
	db, err := s.DB(ctxID)
	if err != nil {
		return Lease{}, false, fmt.Errorf("store.TakeQueued: %w", err)
	}
	l := Lease{JobKey: jobKey, Owner: runnerID, Attempt: attempt, Expires: time.Now().Add(lease)}
	keys := []string{QueueKey(scriptType), ProcessingKey(runnerID), LeasesKey, LeaseOwnersKey}
	n, err := takeQueued.Run(ctx, db, keys, jobKey, l.value(), l.Expires.UnixMilli()).Int64()
	if err != nil {
		return Lease{}, false, scriptErr("store.TakeQueued", err)
	}
	return l, n > 0, nil
}

// takeQueued: see TakeQueued.
// KEYS[1] queue:<type>, KEYS[2] processing:<runner>, KEYS[3] leases,
// KEYS[4] lease_owners. ARGV[1] job key, ARGV[2] owner value, ARGV[3]
// lease expiry (unix ms). A delayed job still waiting in the timers for
// that queue is taken from there, and so is one parked for its
// dependends or prerequisites (jobs_deps.go). Returns how many entries
// were taken (0 or more).
var takeQueued = newScript("takeQueued", luaLease, luaTimers, fmt.Sprintf(`
local n = redis.call('LREM', KEYS[1], 0, ARGV[1])
if n == 0 then n = redis.call('ZREM', timersKey, pushMember(KEYS[1], ARGV[1])) end
if n == 0 and redis.call('HDEL', %q, ARGV[1]) == 1 then
  redis.call('ZREM', %q, ARGV[1])
  n = 1
end
if n == 0 then return 0 end
take(KEYS[2], KEYS[3], KEYS[4], ARGV[1], ARGV[3], ARGV[2])
return n
`, DepsWaitingKey, PrereqWaitingKey))

// ProcessingJobs lists the job keys in processing:<runnerID>.
func (s *Store) ProcessingJobs(ctx context.Context, ctxID uint64, runnerID string) ([]string, error) {
	db, err := s.DB(ctxID)
	if err != nil {
		return nil, fmt.Errorf("store.ProcessingJobs: %w", err)
	}
	keys, err := db.LRange(ctx, ProcessingKey(runnerID), 0, -1).Result()
	if err != nil {
		return nil, fmt.Errorf("store.ProcessingJobs %s: %w", runnerID, err)
	}
	return keys, nil
}

// DropProcessing removes a job key from processing:<runnerID> (for entries
// that hold no lease of ours any more).
func (s *Store) DropProcessing(ctx context.Context, ctxID uint64, runnerID, jobKey string) error {
	db, err := s.DB(ctxID)
	if err != nil {
		return fmt.Errorf("store.DropProcessing: %w", err)
	}
	if err := db.LRem(ctx, ProcessingKey(runnerID), 1, jobKey).Err(); err != nil {
		return fmt.Errorf("store.DropProcessing %s: %w", jobKey, err)
	}
	return nil
}

// QueueTypes lists the script types that have a non-empty queue:<type> in
// the context. It scans the whole keyspace of that DB: call it seldom.
func (s *Store) QueueTypes(ctx context.Context, ctxID uint64) ([]string, error) {
	db, err := s.DB(ctxID)
	if err != nil {
		return nil, fmt.Errorf("store.QueueTypes: %w", err)
	}
	keys, err := scan(ctx, db, QueueKey("*"))
	if err != nil {
		return nil, fmt.Errorf("store.QueueTypes: %w", err)
	}
	out := make([]string, 0, len(keys))
	for _, k := range keys {
		out = append(out, strings.TrimPrefix(k, QueueKey("")))
	}
	return out, nil
}
