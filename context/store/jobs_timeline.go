package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hyphae-run/hyphae/context/model"
)

// A job's timeline is the field "timeline" of its hash (TimelineField):
// a JSON list of entries, one per status transition, oldest first,
// {"t": unix ms, "e": event, "a": attempt, "d": detail}, capped at the
// newest TimelineCap. The Lua scripts that move a job write it in the
// same step as the move (timeline(), luaTimeline), so an entry is there
// exactly when its move happened; it goes with the job's hash, so an
// ended job keeps one key, not two. Jobs written by seed clients straight
// into Redis have none until a script moves them. Jobs ended before the
// timeline moved into the hash kept it in the list timeline:<job key>
// (TimelineKey), still read and deleted with the job.

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

// JobChangesKeep is how long job_changes remembers a move, and
// JobChangesCap how many jobs it remembers at most (the newest): at
// thousands of jobs a second age alone would let it grow past the jobs
// retention keeps. A reader whose mark is older than its oldest entry
// reads everything again (BriefCache).
const (
	JobChangesKeep = 10 * time.Minute
	JobChangesCap  = 50000
)

// TimelineKey is timeline:<job key>, where timelines were kept before
// they moved into the job's hash (TimelineField).
func TimelineKey(jobKey string) string { return "timeline:" + jobKey }

// TimelineField is the job hash's field that holds its timeline.
const TimelineField = model.JobTimelineField

// TimelineEntry is one transition of a job.
type TimelineEntry struct {
	TimeMS  int64  `json:"t"`
	Event   string `json:"e"`
	Attempt int64  `json:"a,omitempty"`
	Detail  string `json:"d,omitempty"`
}

// luaTimeline defines timeline(job, event, detail): it appends an entry
// for event to the job's timeline (TimelineField; the job's attempt read
// now, the time from the server's clock, detail cut to 300 bytes),
// keeping the newest TimelineCap, and notes the job in job_changes
// (JobChangesKey). Scripts call it after they wrote the move;
// timelineNext(job, event, detail) is the same without the write: it
// returns the timeline to write, so a script that writes the move's HSET
// after it writes both in one (detail false: none, the error field is
// not read). What a
// script already knows it says in jobKnown[job] (jobKnow, lua_lib.go):
// the job's attempt and timeline read with its other fields, so they are
// not read again, and nowMS, the time, when the script was given it. The
// trim of job_changes costs a command, so it runs on about one move in
// 16 (its readers ask by score, so older entries left a while longer
// change no answer); the same trim keeps the newest JobChangesCap.
// jobChanges is a local a script may set from its KEYS
// (the claim does, claim_build.go).
var luaTimeline = fmt.Sprintf(`
local jobChanges = %q
local nowMS = nil
local function timelineNext(job, event, detail)
  local ms = nowMS
  if not ms then
    local tm = redis.call('TIME')
    ms = tonumber(tm[1]) * 1000 + math.floor(tonumber(tm[2]) / 1000)
  end
  local k = jobKnown[job]
  if not k then
    local v = redis.call('HMGET', job, 'attempt', 'timeline')
    k = {attempt = v[1] or '', timeline = v[2] or ''}
  end
  local att = tonumber(k.attempt) or 0
  local e = {t = ms, e = event, a = att}
  if detail == nil or (detail == '' and event == 'error') then detail = redis.call('HGET', job, 'error') or '' end
  if detail and detail ~= '' then e.d = string.sub(detail, 1, 300) end
  local list = {}
  if k.timeline ~= '' then
    local ok, l = pcall(cjson.decode, k.timeline)
    if ok and type(l) == 'table' then list = l end
  end
  list[#list + 1] = e
  while #list > %d do table.remove(list, 1) end
  local raw = cjson.encode(list)
  if jobKnown[job] then jobKnown[job].timeline = raw end
  redis.call('ZADD', jobChanges, ms, job)
  if ms %% 16 == 0 then
    redis.call('ZREMRANGEBYSCORE', jobChanges, '-inf', ms - %d)
    redis.call('ZREMRANGEBYRANK', jobChanges, 0, -%d)
  end
  return raw
end
local function timeline(job, event, detail)
  redis.call('HSET', job, 'timeline', timelineNext(job, event, detail))
end
`, JobChangesKey, TimelineCap, JobChangesKeep.Milliseconds(), JobChangesCap+1)

// timelineSent queues on p, for a job handed to another agent (o.Job with
// a new runner, store.Dispatch), its "sent" entry (timelineSentSrc).
func timelineSent(ctx context.Context, p redis.Pipeliner, o Outgoing) {
	to := o.JobFields["runner"]
	if o.Job == "" || to == "" {
		return
	}
	p.Eval(ctx, timelineSentSrc, []string{o.Job}, EventSent, to)
}

// timelineSentSrc appends an entry to a job's timeline; run by EVAL, as
// one command of a pipeline (Redis keeps the script compiled by its sha).
// KEYS[1] the job key. ARGV[1] the event, ARGV[2] its detail. Returns 1,
// or 0 when the job is gone (nothing written).
var timelineSentSrc = luaJobKnown + luaTimeline + `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
timeline(KEYS[1], ARGV[1], ARGV[2])
return 1
`

// Timeline returns a job's timeline, oldest first (empty when none): the
// entries of its hash's field, after those of the list a job ended
// before the timeline moved into the hash still holds.
func (s *Jobs) Timeline(ctx context.Context, ctxID uint64, jobKey string) ([]TimelineEntry, error) {
	db, err := s.db(ctxID)
	if err != nil {
		return nil, fmt.Errorf("store.Timeline: %w", err)
	}
	var field *redis.StringCmd
	var old *redis.StringSliceCmd
	_, err = db.Pipelined(ctx, func(p redis.Pipeliner) error {
		field = p.HGet(ctx, jobKey, TimelineField)
		old = p.LRange(ctx, TimelineKey(jobKey), 0, -1)
		return nil
	})
	if err != nil && !errors.Is(err, redis.Nil) {
		return nil, fmt.Errorf("store.Timeline %s: %w", jobKey, err)
	}
	var out []TimelineEntry
	for _, r := range old.Val() {
		var e TimelineEntry
		if json.Unmarshal([]byte(r), &e) == nil {
			out = append(out, e)
		}
	}
	var now []TimelineEntry
	if raw := field.Val(); raw != "" && json.Unmarshal([]byte(raw), &now) == nil {
		out = append(out, now...)
	}
	if out == nil {
		out = []TimelineEntry{}
	}
	return out, nil
}

// luaAttemptEnded defines attemptEnded(job, attempt): whether the newest
// entry of the job's timeline is the end (error, finished) of attempt.
const luaAttemptEnded = `
local function attemptEnded(job, attempt)
  local k = jobKnown[job]
  local raw = k and k.timeline or redis.call('HGET', job, 'timeline')
  if not raw or raw == '' then return false end
  local ok, l = pcall(cjson.decode, raw)
  if not ok or type(l) ~= 'table' or #l == 0 then return false end
  local e = l[#l]
  return type(e) == 'table' and (e.e == 'error' or e.e == 'finished') and tonumber(e.a) == tonumber(attempt)
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
