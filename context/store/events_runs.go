package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// EventRunStarting is the EventRunsKey value while a run is being created.
const EventRunStarting = "starting"

// ClaimEventRun records that event eventID starts a run of trigger: it
// returns "" when this call claimed it (the caller creates the run and
// records it with SetEventRun), else what an earlier call recorded (a flow
// id, or EventRunStarting when that call did not get to record one).
func (s *Events) ClaimEventRun(ctx context.Context, ctxID uint64, eventID, trigger string) (string, error) {
	db, err := s.db(ctxID)
	if err != nil {
		return "", fmt.Errorf("store.ClaimEventRun: %w", err)
	}
	res, err := claimEventRun.Run(ctx, db, []string{EventRunsKey(eventID)}, trigger, EventRunStarting,
		int64(EventTTL/time.Second)).Text()
	if err != nil {
		return "", scriptErr("store.ClaimEventRun", err)
	}
	return res, nil
}

// claimEventRun: see ClaimEventRun. KEYS[1] event_runs:<id>. ARGV[1]
// trigger, ARGV[2] the starting marker, ARGV[3] TTL (s). Returns "" when
// claimed, else the value found.
var claimEventRun = newScript("claimEventRun", `
local prev = redis.call('HGET', KEYS[1], ARGV[1])
if prev then return prev end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('EXPIRE', KEYS[1], tonumber(ARGV[3]))
return ''
`)

// SetEventRun records the flow id of the run event eventID started for
// trigger.
func (s *Events) SetEventRun(ctx context.Context, ctxID uint64, eventID, trigger, flowID string) error {
	db, err := s.db(ctxID)
	if err != nil {
		return fmt.Errorf("store.SetEventRun: %w", err)
	}
	return wrap("store.SetEventRun", db.HSet(ctx, EventRunsKey(eventID), trigger, flowID).Err())
}

// SaveTrigger stores trigger t (JSON) under flow name.
func (s *Events) SaveTrigger(ctx context.Context, ctxID uint64, name, t string) error {
	db, err := s.db(ctxID)
	if err != nil {
		return fmt.Errorf("store.SaveTrigger: %w", err)
	}
	return wrap("store.SaveTrigger", db.HSet(ctx, TriggersKey, name, t).Err())
}

// Triggers returns the context's triggers: flow name → JSON.
func (s *Events) Triggers(ctx context.Context, ctxID uint64) (map[string]string, error) {
	db, err := s.db(ctxID)
	if err != nil {
		return nil, fmt.Errorf("store.Triggers: %w", err)
	}
	m, err := db.HGetAll(ctx, TriggersKey).Result()
	return m, wrap("store.Triggers", err)
}

// DeleteTrigger removes the trigger of flow name (ErrNotFound: none).
func (s *Events) DeleteTrigger(ctx context.Context, ctxID uint64, name string) error {
	db, err := s.db(ctxID)
	if err != nil {
		return fmt.Errorf("store.DeleteTrigger: %w", err)
	}
	n, err := db.HDel(ctx, TriggersKey, name).Result()
	if err == nil && n == 0 {
		err = fmt.Errorf("trigger %q: %w", name, ErrNotFound)
	}
	return wrap("store.DeleteTrigger", err)
}

// SeeEvent records event key (named name, correlation id corr) as the
// last one seen for corr and returns the wait_for attempts parked for it
// (WaitMember), in one script: a wait parked at the same time either is
// among them or finds the event (ParkWait).
func (s *Events) SeeEvent(ctx context.Context, ctxID uint64, name, corr, key string) ([]string, error) {
	db, err := s.db(ctxID)
	if err != nil {
		return nil, fmt.Errorf("store.SeeEvent: %w", err)
	}
	keys := []string{EventSeenKey(name, corr), WaitSetKey(name, corr)}
	ms, err := seeEvent.Run(ctx, db, keys, key, int64(EventTTL/time.Second)).StringSlice()
	return ms, scriptErr("store.SeeEvent", err)
}

// seeEvent: see SeeEvent. KEYS[1] event_seen:<name>:<corr>, KEYS[2]
// wait_for:<name>:<corr>. ARGV[1] message key, ARGV[2] TTL (s).
var seeEvent = newScript("seeEvent", `
redis.call('SET', KEYS[1], ARGV[1], 'EX', tonumber(ARGV[2]))
return redis.call('SMEMBERS', KEYS[2])
`)

// Wait is a wait_for attempt to park: job key's attempt waits until
// Deadline for an event named Name whose payload field Field (its
// correlation_id when Field is "" or the payload lacks it) is Value.
type Wait struct {
	Job      string
	Attempt  int64
	Name     string
	Field    string
	Value    string
	Deadline time.Time
}

// Corr is how w's wait set and seen keys name what it waits for.
func (w Wait) Corr() string { return WaitCorr(w.Field, w.Value) }

// WaitCorr names payload field = value in wait set and seen keys.
func WaitCorr(field, value string) string { return field + "=" + value }

// WaitFields returns the payload fields the wait_for steps parked for
// events named name correlate on ("" = correlation_id).
func (s *Events) WaitFields(ctx context.Context, ctxID uint64, name string) ([]string, error) {
	db, err := s.db(ctxID)
	if err != nil {
		return nil, fmt.Errorf("store.WaitFields: %w", err)
	}
	fs, err := db.SMembers(ctx, WaitFieldsKey(name)).Result()
	return fs, wrap("store.WaitFields", err)
}

// ParkWait parks w, taken from processing (WaitForProcessingKey): its
// member joins the wait set, its timeout goes in the timers (pushing
// WaitTimeoutEntry on EventsKey when due), the job records what it waits
// for, and it leaves processing — one script. It returns the message key
// of an event already seen for w's name and correlation id ("" if none):
// the caller resumes the wait with it at once.
func (s *Events) ParkWait(ctx context.Context, ctxID uint64, processing string, w Wait) (string, error) {
	db, err := s.db(ctxID)
	if err != nil {
		return "", fmt.Errorf("store.ParkWait: %w", err)
	}
	member := WaitMember(w.Job, w.Attempt)
	keys := []string{WaitSetKey(w.Name, w.Corr()), EventSeenKey(w.Name, w.Corr()), w.Job, processing, TimersKey,
		WaitFieldsKey(w.Name)}
	args := []any{member, TimerPush(EventsKey, WaitTimeoutEntry(member)), w.Deadline.UnixMilli(), ctxID,
		w.Name, w.Corr(), FormatRunAt(w.Deadline), w.Field}
	seen, err := parkWait.Run(ctx, db, keys, args...).Text()
	if errors.Is(err, redis.Nil) {
		return "", nil
	}
	return seen, scriptErr("store.ParkWait", err)
}

// parkWait: see ParkWait. KEYS[1] the wait set, KEYS[2] event_seen:…,
// KEYS[3] the job, KEYS[4] processing, KEYS[5] timers, KEYS[6]
// wait_fields:<name>. ARGV[1] member, ARGV[2] timer member, ARGV[3]
// deadline (unix ms), ARGV[4] context id, ARGV[5] event name, ARGV[6]
// field=value, ARGV[7] deadline (unix s), ARGV[8] the payload field.
var parkWait = newScript("parkWait", luaTimers, `
redis.call('SADD', KEYS[1], ARGV[1])
redis.call('SADD', KEYS[6], ARGV[8])
addTimer(ARGV[2], ARGV[3], ARGV[4])
if redis.call('EXISTS', KEYS[3]) == 1 then
  redis.call('HSET', KEYS[3], 'wait_event', ARGV[5], 'wait_correlation', ARGV[6], 'wait_deadline', ARGV[7])
end
redis.call('LREM', KEYS[4], 1, KEYS[3])
return redis.call('GET', KEYS[2])
`)

// Unpark drops a wait_for attempt's entries (after it ended either way):
// its member of the wait set and its timeout.
func (s *Events) Unpark(ctx context.Context, ctxID uint64, name, corr, member string) error {
	db, err := s.db(ctxID)
	if err != nil {
		return fmt.Errorf("store.Unpark: %w", err)
	}
	_, err = db.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.SRem(ctx, WaitSetKey(name, corr), member)
		p.ZRem(ctx, TimersKey, TimerPush(EventsKey, WaitTimeoutEntry(member)))
		return nil
	})
	return wrap("store.Unpark", err)
}
