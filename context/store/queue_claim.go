package store

import (
	"context"
	"errors"
	"fmt"
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
// and its other fields are left as they are (VerdictInvalid). A job its
// idempotency key or its failures in a row refuse is started, leased and
// ended error in the same step (VerdictInvalid, with the reason). The
// gates it goes through are claimGates (claim_gates.go).
func (s *Queues) ClaimJob(ctx context.Context, ctxID uint64, runnerID string, types []string,
	lease time.Duration, reject bool) (*Claim, error) {
	db, err := s.db(ctxID)
	if err != nil {
		return nil, fmt.Errorf("store.ClaimJob: %w", err)
	}
	q := s.newClaimCall(ctxID, runnerID, types, lease, reject)
	c, err := q.run(ctx, db, nil)
	if err != nil {
		return nil, fmt.Errorf("store.ClaimJob: %w", err)
	}
	return c, nil
}

// claimCall is one claim: the KEYS and ARGV of its scripts (the same for
// every variant), and what decoding the reply needs.
type claimCall struct {
	keys     []string
	args     []any
	types    []string
	runnerID string
	now      time.Time
	expires  time.Time
}

// newClaimCall builds the claim's KEYS (claimKeys, then the queues) and
// ARGV (claimArgs).
func (s *core) newClaimCall(ctxID uint64, runnerID string, types []string, lease time.Duration, reject bool) claimCall {
	keys := make([]string, 0, len(claimKeys)+len(types))
	for _, k := range claimKeys {
		keys = append(keys, k.key)
	}
	keys[0] = ProcessingKey(runnerID)
	for _, t := range types {
		keys = append(keys, QueueKey(t))
	}
	mode, ts := "run", time.Now()
	if reject {
		mode = "reject"
	}
	exp := ts.Add(lease)
	args := []any{runnerID, exp.UnixMilli(), ts.Unix(), mode, DeadLetterCap,
		int64(ReplyTTL / time.Second), ReplyKey(""), ts.UnixMilli(), ctxID,
		s.idempotencyTTL().Milliseconds(), s.bus.QuarantineAfter()}
	return claimCall{keys: keys, args: args, types: types, runnerID: runnerID, now: ts, expires: exp}
}

// run runs the claim: the plain variant first (its reply already in
// first when the caller sent it, else nil), then, while the job popped
// needs gates the variant lacks, the variant with them. Each round adds
// a gate, so there are at most as many rounds as optional gates, plus one.
func (q claimCall) run(ctx context.Context, db *redis.Client, first *redis.Cmd) (*Claim, error) {
	v, cmd := gateFlag(0), first
	for {
		if cmd == nil {
			cmd = claimScript(v).Run(ctx, db, q.keys, q.args...)
		}
		c, more, err := q.result(cmd)
		if err != nil || more == 0 {
			return c, err
		}
		if more&^gateAll != 0 || v|more == v {
			return nil, fmt.Errorf("claim: %s asks for gates %d it holds", claimScriptName(v), more)
		}
		v, cmd = v|more, nil
	}
}

// result decodes the script's reply: nil, nil when the queues were empty;
// the gates the job needs beside the variant's when it needs more.
func (q claimCall) result(cmd *redis.Cmd) (*Claim, gateFlag, error) {
	res, err := cmd.Slice()
	if errors.Is(err, redis.Nil) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, scriptErr("claim", err)
	}
	if len(res) > 3 && res[2] == "gates" {
		m, _ := res[3].(int64)
		if m <= 0 {
			return nil, 0, fmt.Errorf("claim reply: bad gates %v", res[3])
		}
		return nil, gateFlag(m), nil
	}
	c, err := decodeClaim(res, q.types, q.now.Unix())
	if err != nil {
		return nil, 0, err
	}
	c.Lease = Lease{JobKey: c.JobKey, Owner: q.runnerID, Attempt: c.Attempt, Expires: q.expires}
	return c, 0, nil
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
	from := 5
	if v == verdictScreened { // started, then ended by a screen: the fields as for run
		c.Verdict = VerdictRun
		if len(res) > 5 {
			c.Reason, _ = res[5].(string)
		}
		from = 6
	}
	for i := from; i+1 < len(res); i += 2 {
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
	if v == verdictScreened {
		c.Verdict = VerdictInvalid
	}
	return c, nil
}

// verdictScreened is the script's verdict for a job a screen gate ended
// after it was started (VerdictInvalid to the caller, with the fields
// of a run).
const verdictScreened = "screened"

// TakeQueued moves the named job out of queue:<scriptType> into
// processing:<runnerID> with a lease, if it is still queued there. It
// reports whether it was.
func (s *Queues) TakeQueued(ctx context.Context, ctxID uint64, jobKey, scriptType, runnerID string,
	attempt int64, lease time.Duration) (Lease, bool, error) {
	db, err := s.db(ctxID)
	if err != nil {
		return Lease{}, false, fmt.Errorf("store.TakeQueued: %w", err)
	}
	l := Lease{JobKey: jobKey, Owner: runnerID, Attempt: attempt, Expires: time.Now().Add(lease)}
	keys := []string{QueueKey(scriptType), ProcessingKey(runnerID), LeasesKey, LeaseOwnersKey,
		TimersKey, DepsWaitingKey, PrereqWaitingKey}
	n, err := takeQueued.Run(ctx, db, keys, jobKey, l.value(), l.Expires.UnixMilli()).Int64()
	if err != nil {
		return Lease{}, false, scriptErr("store.TakeQueued", err)
	}
	return l, n > 0, nil
}

// takeQueued: see TakeQueued.
// KEYS[1] queue:<type>, KEYS[2] processing:<runner>, KEYS[3] leases,
// KEYS[4] lease_owners, KEYS[5] timers, KEYS[6] deps_waiting, KEYS[7]
// prereq_waiting. ARGV[1] job key, ARGV[2] owner value, ARGV[3] lease
// expiry (unix ms). A delayed job still waiting in the timers for that
// queue is taken from there, and so is one parked for its dependends or
// prerequisites (jobs_deps.go). Returns how many entries were taken (0 or
// more).
var takeQueued = newScript("takeQueued", luaLease, luaTimers, `
local n = redis.call('LREM', KEYS[1], 0, ARGV[1])
if n == 0 then n = redis.call('ZREM', KEYS[5], pushMember(KEYS[1], ARGV[1])) end
if n == 0 and redis.call('HDEL', KEYS[6], ARGV[1]) == 1 then
  redis.call('ZREM', KEYS[7], ARGV[1])
  n = 1
end
if n == 0 then return 0 end
take(KEYS[2], KEYS[3], KEYS[4], ARGV[1], ARGV[3], ARGV[2])
return n
`)

// ProcessingJobs lists the job keys in processing:<runnerID>.
func (s *Queues) ProcessingJobs(ctx context.Context, ctxID uint64, runnerID string) ([]string, error) {
	db, err := s.db(ctxID)
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
func (s *Queues) DropProcessing(ctx context.Context, ctxID uint64, runnerID, jobKey string) error {
	db, err := s.db(ctxID)
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
func (s *Queues) QueueTypes(ctx context.Context, ctxID uint64) ([]string, error) {
	db, err := s.db(ctxID)
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
