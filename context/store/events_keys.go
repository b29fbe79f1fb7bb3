package store

import (
	"strconv"
	"strings"
)

// Keys of events, flow triggers and wait_for steps (context DB). Like
// keys.go, these helpers are the only place these names are built.
const (
	// EventsKey is the list of entries the scheduler's event loop handles:
	// the message key of an event (local, received, or a received chat or
	// mail message), or a wait_for timeout (WaitTimeoutEntry).
	EventsKey = "events"
	// TriggersKey is the hash flow name → trigger (JSON: the flow file, its
	// `on:` and the actor that installed it).
	TriggersKey = "triggers"
	// WaitForQueueKey is the queue of wait_for steps: the scheduler
	// dispatches them as jobs of type WaitForType, pinned to this agent,
	// and the event loop, not a runner, takes them from it.
	WaitForQueueKey = "queue:" + WaitForType
	// WaitForType is the script type of a wait_for step's job.
	WaitForType = "wait_for"
)

// EventsProcessingKey holds the EventsKey entries one agent is handling.
func EventsProcessingKey(self string) string { return EventsKey + ":processing:" + self }

// WaitForProcessingKey holds the wait_for jobs one agent is parking.
func WaitForProcessingKey(self string) string { return WaitForType + ":processing:" + self }

// EventRunsKey is the hash trigger (flow name) → flow id ("starting" while
// being created) of the runs event id started: one run per event and
// trigger, across restarts.
func EventRunsKey(eventID string) string { return "event_runs:" + eventID }

// WaitSetKey is the set of parked wait_for jobs (WaitMember) waiting for
// event name with correlation id corr.
func WaitSetKey(name, corr string) string { return "wait_for:" + name + ":" + corr }

// WaitFieldsKey is the set of payload fields wait_for steps ever parked
// for events named name correlate on ("" = the event's correlation_id):
// an event is looked up under each.
func WaitFieldsKey(name string) string { return "wait_fields:" + name }

// EventSeenKey remembers the last event named name with correlation id
// corr (its message key), so a wait_for parked after it still sees it.
func EventSeenKey(name, corr string) string { return "event_seen:" + name + ":" + corr }

// WaitMember names a parked attempt of job key in a WaitSetKey set.
func WaitMember(key string, attempt int64) string { return key + "|" + strconv.FormatInt(attempt, 10) }

// ParseWaitMember splits a WaitMember.
func ParseWaitMember(m string) (key string, attempt int64, ok bool) {
	key, a, ok := strings.Cut(m, "|")
	if !ok {
		return "", 0, false
	}
	n, err := strconv.ParseInt(a, 10, 64)
	return key, n, err == nil
}

// WaitTimeoutEntry is the EventsKey entry (pushed by the timers when due)
// that ends a parked wait_for attempt (WaitMember) with a timeout.
func WaitTimeoutEntry(member string) string { return waitTimeoutPrefix + member }

// ParseWaitTimeout reads a WaitTimeoutEntry; ok false for other entries.
func ParseWaitTimeout(entry string) (member string, ok bool) {
	return strings.CutPrefix(entry, waitTimeoutPrefix)
}

const waitTimeoutPrefix = "wait_timeout|"
