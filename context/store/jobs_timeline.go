package store

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// A job's timeline is the capped list timeline:<job key>: one JSON entry
// per status transition, oldest first, {"t": unix ms, "e": event, "a":
// attempt, "d": detail}. The Lua scripts that move a job write it in the
// same step as the move (timeline(), luaTimeline), so an entry is there
// exactly when its move happened; retention deletes it with the job. Jobs
// written by seed clients straight into Redis have none until a script
// moves them.

// TimelineCap is how many entries a job's timeline keeps (the newest).
const TimelineCap = 100

// Timeline events beside the statuses a job enters (dispatched, started,
// finished, error, waiting_for_prerequisites), which are events too.
const (
	EventCreated     = "created"     // the job was written
	EventRetry       = "retry"       // queued again as a new attempt
	EventSent        = "sent"        // handed to another agent (detail: its peer)
	EventUnreachable = "unreachable" // the agent running it stopped answering
	EventReachable   = "reachable"   // … and answered again
	EventQuarantined = "quarantined" // set aside after failures in a row (detail: why); its "error" follows
)

// JobChangesKey is job_changes, the jobs of a context DB that moved in the
// last JobChangesKeep, scored by when (unix ms): a reader that keeps
// briefs of the jobs (the dashboard's) reads again only those.
const JobChangesKey = "job_changes"

// JobChangesKeep is how long job_changes remembers a move.
const JobChangesKeep = 10 * time.Minute

// TimelineKey is timeline:<job key>.
func TimelineKey(jobKey string) string { return "timeline:" + jobKey }

// TimelineEntry is one transition of a job.
type TimelineEntry struct {
	TimeMS  int64  `json:"t"`
	Event   string `json:"e"`
	Attempt int64  `json:"a,omitempty"`
	Detail  string `json:"d,omitempty"`
}

// luaTimeline defines timeline(job, event, detail): it appends an entry
// for event to the job's timeline (the job's attempt read now, the time
// from the server's clock, detail cut to 300 bytes), keeping the newest
// TimelineCap, and notes the job in job_changes (JobChangesKey). Scripts
// call it after they wrote the move. The trims cost a command each, so
// they run only when needed: the timeline's when it has grown past the
// cap, job_changes' on about one move in 16 (its readers ask by score, so
// older entries left a while longer change no answer). jobChanges is a
// local a script may set from its KEYS (the claim does, claim_build.go).
var luaTimeline = fmt.Sprintf(`
local jobChanges = %q
local function timeline(job, event, detail)
  local tm = redis.call('TIME')
  local ms = tonumber(tm[1]) * 1000 + math.floor(tonumber(tm[2]) / 1000)
  local att = tonumber(redis.call('HGET', job, 'attempt') or '0') or 0
  local e = {t = ms, e = event, a = att}
  if (not detail or detail == '') and event == 'error' then detail = redis.call('HGET', job, 'error') or '' end
  if detail and detail ~= '' then e.d = string.sub(detail, 1, 300) end
  local key = 'timeline:' .. job
  if redis.call('RPUSH', key, cjson.encode(e)) > %d then redis.call('LTRIM', key, -%d, -1) end
  redis.call('ZADD', jobChanges, ms, job)
  if ms %% 16 == 0 then redis.call('ZREMRANGEBYSCORE', jobChanges, '-inf', ms - %d) end
end
`, JobChangesKey, TimelineCap, TimelineCap, JobChangesKeep.Milliseconds())

// timelineSent queues on p, for a job handed to another agent (o.Job with
// a new runner, store.Dispatch), its "sent" entry.
func timelineSent(ctx context.Context, p redis.Pipeliner, o Outgoing) {
	to := o.JobFields["runner"]
	if o.Job == "" || to == "" {
		return
	}
	att, _ := strconv.ParseInt(o.JobFields["attempt"], 10, 64)
	e, _ := json.Marshal(TimelineEntry{TimeMS: time.Now().UnixMilli(), Event: EventSent, Attempt: att, Detail: to})
	p.RPush(ctx, TimelineKey(o.Job), e)
	p.LTrim(ctx, TimelineKey(o.Job), -TimelineCap, -1)
	p.ZAdd(ctx, JobChangesKey, redis.Z{Score: float64(time.Now().UnixMilli()), Member: o.Job})
}

// Timeline returns a job's timeline, oldest first (empty when none).
func (s *Jobs) Timeline(ctx context.Context, ctxID uint64, jobKey string) ([]TimelineEntry, error) {
	db, err := s.db(ctxID)
	if err != nil {
		return nil, fmt.Errorf("store.Timeline: %w", err)
	}
	raw, err := db.LRange(ctx, TimelineKey(jobKey), 0, -1).Result()
	if err != nil {
		return nil, fmt.Errorf("store.Timeline %s: %w", jobKey, err)
	}
	out := make([]TimelineEntry, 0, len(raw))
	for _, r := range raw {
		var e TimelineEntry
		if json.Unmarshal([]byte(r), &e) == nil {
			out = append(out, e)
		}
	}
	return out, nil
}

// luaAttemptEnded defines attemptEnded(job, attempt): whether the newest
// entry of the job's timeline is the end (error, finished) of attempt.
const luaAttemptEnded = `
local function attemptEnded(job, attempt)
  local raw = redis.call('LINDEX', 'timeline:' .. job, -1)
  if not raw then return false end
  local ok, e = pcall(cjson.decode, raw)
  return ok and type(e) == 'table' and (e.e == 'error' or e.e == 'finished') and tonumber(e.a) == tonumber(attempt)
end
`

// EndAttempt writes on the timeline the end (error, detail why) of a
// failed attempt that will be retried after a delay, when it fails: the
// job keeps its status and lease while the runner waits, and the requeue
// that follows writes no second end (requeueJob). Fenced: only while the
// job is started at attempt; false when it is not.
func (s *Jobs) EndAttempt(ctx context.Context, ctxID uint64, jobKey string, attempt int64, why string) (bool, error) {
	db, err := s.db(ctxID)
	if err != nil {
		return false, fmt.Errorf("store.EndAttempt: %w", err)
	}
	n, err := endAttempt.Run(ctx, db, []string{jobKey}, attempt, why).Int()
	return n == 1, scriptErr("store.EndAttempt", err)
}

// endAttempt: see EndAttempt. KEYS[1] job key, ARGV[1] the attempt,
// ARGV[2] why. Returns 1 when the end was written (or was there), else 0.
var endAttempt = newScript("endAttempt", luaTimeline, luaAttemptEnded, `
local cur = redis.call('HMGET', KEYS[1], 'status', 'attempt')
if cur[1] ~= 'started' or cur[2] ~= ARGV[1] then return 0 end
if attemptEnded(KEYS[1], ARGV[1]) then return 1 end
timeline(KEYS[1], 'error', ARGV[2])
return 1
`)
