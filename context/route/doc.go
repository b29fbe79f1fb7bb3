// Package route is the agent's one rule for who may run a job
// (docs/design.md, "Trust"). The API's job.run (node/control), the
// scheduler's flow jobs and the bridge's sends all ask Resolve.
//
// The rule: a job runs where its target names — this agent ("self", its
// own peer ID), a peer ID, or runner:<id>, a runner record of the job's
// context, which names an agent by its pubkey (or this agent, local:
// true). When the target leaves the choice to the agent (no target, or
// "any"), the job goes only to a runner registered in its context whose
// script types, when set, include the job's, or stays here when this
// agent's runner (or an external worker declared by a local record) runs
// its type. Presence only ranks the registered runners (up, announcing the
// type, least loaded first) and an open circuit breaker counts as down; a
// peer that merely announces itself gets nothing. When none can ever run
// it the job is refused (ErrNoRunner).
//
// The callers read targets a little differently — job.run defaults to
// self and fails on a bad target, the scheduler prefers its own runner and
// leaves what it cannot resolve to the bridge, the bridge waits with a
// reason — and each difference is a named field of Options. Resolve reads
// runner records through Records and presence through Presence, which
// each caller adapts from its store and overlay; this package imports
// only context/model.
package route
