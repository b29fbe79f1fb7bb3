package store

import (
	"strconv"
	"strings"
)

// Keys, fields and the channel of delayed work (timers). Like keys.go,
// these helpers are the only place these names are built.

// TimersKey is the ZSET (context DB) of entries waiting for their time:
// score = due time in unix milliseconds, member = TimerPush(list, entry).
// When an entry is due, FireDueTimers pushes entry on list and removes the
// member, in one step, so each fires once however many agents fire them.
const TimersKey = "timers"

// TimersChannel is the pub/sub channel (server-wide) on which a script that
// adds an entry earlier than every other one announces "<context id>
// <due unix ms>", so the timer of that context wakes up and sleeps until
// then instead of polling.
const TimersChannel = "hyphae:timers"

// RunAtField is the job hash field (unix seconds, a decimal number) before
// which a job does not start: a queued job found early is moved to
// TimersKey and comes back on its queue when due.
const RunAtField = "run_at"

// runAtFiredField holds the run_at value whose timer fired (the job was
// pushed back when due by its agent's clock): a claim by a runner whose
// clock is behind does not put it back again.
const runAtFiredField = "run_at_fired"

// timerPushPrefix starts a member of TimersKey that pushes an entry.
const timerPushPrefix = "push "

// TimerPush is the TimersKey member that pushes entry on list when due.
func TimerPush(list, entry string) string { return timerPushPrefix + list + " " + entry }

// ParseTimerPush splits a TimersKey member made by TimerPush.
func ParseTimerPush(member string) (list, entry string, ok bool) {
	rest, ok := strings.CutPrefix(member, timerPushPrefix)
	if !ok {
		return "", "", false
	}
	return strings.Cut(rest, " ")
}

// parseTimerMessage reads a TimersChannel payload.
func parseTimerMessage(p string) (ctxID uint64, dueMs int64, ok bool) {
	a, b, ok := strings.Cut(p, " ")
	if !ok {
		return 0, 0, false
	}
	id, err1 := strconv.ParseUint(a, 10, 64)
	ms, err2 := strconv.ParseInt(b, 10, 64)
	return id, ms, err1 == nil && err2 == nil
}
