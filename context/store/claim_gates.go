package store

// A job claim is a list of gates, run in the order of claimGates below
// by one Lua script that claim_build.go assembles from them: each gate is
// one file (claimgate_<name>.go) that holds its Lua, says what it
// refuses and names the keys it reads and writes. The scripts Redis runs
// are checked in, one per variant, under testdata/claim/ (a test fails
// when a built script differs from its file; go test -run ClaimGolden
// -update rewrites them).
//
// A gate with a flag is used by some claims or jobs only (prerequisite
// re-checks due, a run_at ahead, dependends, a concurrency key, fields
// that make no valid job, an idempotency key, failures behind it): the
// claim first runs the variant without those gates, which looks at each
// popped job's fields (read once, HGETALL) and, for a job that needs a
// gate it lacks, puts the job back at the head of its queue untouched
// and answers which gates it needs; the store then runs the variant with
// them (queue_claim.go). So a plain job pays for no gate it does not use,
// and every variant is one script, built when first needed and loaded
// once (EVALSHA).
//
// What the runner limits after a claim (its concurrency, per context and
// per type, executor/keyed_limits.go) counts jobs in the runner's memory,
// not in Redis: it decides which queues a claim tries, not a gate.

// gateFlag marks the gates a variant holds beside those every claim runs.
type gateFlag uint8

// The optional gates' flags, in the order of claimGates.
const (
	gateSettle gateFlag = 1 << iota
	gateSchedule
	gateDeps
	gateKeyed
	gateInvalid
	gateIdempotency
	gateQuarantine

	gateAll = gateSettle | gateSchedule | gateDeps | gateKeyed | gateInvalid | gateIdempotency | gateQuarantine
)

// gatePhase is where in the claim a gate runs.
type gatePhase uint8

const (
	phaseSettle  gatePhase = iota // once per claim, before the first pop: call is a statement
	phaseHold                     // per popped job: call is true when the gate took the job off processing
	phaseUsable                   // the popped job's hash: check, deadLetter and (invalid) endInvalid
	phaseVerdict                  // call is the verdict other than run, or nil
	phaseScreen                   // after the job is started and leased: call is why it was ended, or nil
)

// claimGate is one gate of the claim.
type claimGate struct {
	name    string
	flag    gateFlag // 0: every variant holds it
	phase   gatePhase
	refuses string   // what it refuses, for the script's header
	lua     []string // Lua it needs, shared fragments first (the builder drops repeats)
	call    string   // the Lua that runs it in its phase (see gatePhase)
	// needs (flagged gates) is a Lua expression over f (the job's fields),
	// true when the job needs the gate; it may call only the functions of
	// needsLua and luaStartable (pure Lua, no Redis command), which every
	// variant holds. A settle gate's needs is asked once per claim, before
	// the first pop, and may read Redis.
	needs    string
	needsLua string
	touches  []string // keys it reads and writes, beyond the claim's own (header)
}

// claimGates is the claim, in order. The holds run per popped job until
// one lets it through (a held job is off processing, and the next one is
// popped); the verdicts pick stopped or rejected over run; the screens end
// a started job that must not run.
var claimGates = []claimGate{
	settleGate,      // claimgate_settle.go
	scheduleGate,    // claimgate_schedule.go
	depsGate,        // claimgate_deps.go
	keyedGate,       // claimgate_keyed.go
	usableGate,      // claimgate_usable.go
	invalidGate,     // claimgate_usable.go
	stoppedGate,     // claimgate_stopped.go
	rejectedGate,    // claimgate_stopped.go
	idempotencyGate, // claimgate_idempotency.go
	quarantineGate,  // claimgate_quarantine.go
}

// claimKeys are the claim's KEYS before the queues, in order, with the
// Lua local a shared fragment names the key by ("" none): the script sets
// each such local from its KEYS entry, so the fragments use the declared
// key.
var claimKeys = []struct{ key, doc, local string }{
	{"", "processing:<runner>", ""},
	{LeasesKey, LeasesKey, ""},
	{LeaseOwnersKey, LeaseOwnersKey, ""},
	{DeadLetterKey, DeadLetterKey, ""},
	{JobsDoneKey, JobsDoneKey, ""},
	{RemoteDoneKey, RemoteDoneKey, ""},
	{DeadLetterCountsKey, DeadLetterCountsKey, ""},
	{TimersKey, TimersKey, "timersKey"},
	{DepsWaitingKey, DepsWaitingKey, "depsWaiting"},
	{PrereqWaitingKey, PrereqWaitingKey, "prereqWaiting"},
	{JobChangesKey, JobChangesKey, "jobChanges"},
	{KeyedWaitingKey, KeyedWaitingKey, "keyedWaiting"},
}

// claimArgs documents the claim's ARGV, in order (claimCall builds it).
var claimArgs = []string{
	"runner id",
	"lease expiry (unix ms)",
	"now (unix s)",
	`"run" (mark it started) or "reject" (lease it only)`,
	"dead-letter list cap",
	"reply list TTL (s)",
	`the reply list's key prefix (ReplyKey of "")`,
	"now (unix ms)",
	"the context id",
	"idempotency record TTL (ms; 0: no key is checked)",
	"failures in a row that quarantine (0: never)",
}

// claimDerived are the keys every variant touches that are named only
// once the job is popped (the job's own key and names built from it):
// they cannot be in KEYS, since no caller knows which job a claim pops
// before it runs. Contexts are DBs of one Redis, so the contract is
// single-instance anyway; the golden files pin the list.
var claimDerived = []string{
	"<job>: the popped job's hash",
	"stop:<job>",
}

// endTouches is what a gate that ends the job (announceEnd) touches
// beside it, named after the pop.
const endTouches = "reply:<job>, dep_waiters:<job>, keyed_running:<its key>, and the jobs they release"
