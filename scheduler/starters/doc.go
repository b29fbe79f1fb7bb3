// Package starters starts runs of flows that nobody asks for at the
// moment they start: cron schedules (a flow file's `schedule:`, fired by
// the agent's timers, docs/time.md) and event triggers (a flow file's
// `on:`, fired by the engine's event loop for each event of a context,
// docs/events.md).
//
// A starter reaches the engine only through Engine (create a run, start
// it, cancel one, read where one is, serve a context) and the store only
// through ScheduleStore and TriggerStore. Every decision is recorded in
// Redis before the run it starts (store.ClaimTick, store.ClaimEventRun),
// so a tick or an event starts at most one run, across agents and
// restarts.
package starters
