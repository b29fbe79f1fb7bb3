// Package scheduler runs flows (docs/design.md, "Flows"): DAGs of jobs
// spread over local and remote runners, with upstream results feeding
// downstream jobs. The flow-file language (what a flow file says, how it
// is read and checked) is package flowfile; this package is the engine
// that runs what it parsed.
//
// # Running
//
// Create stores the flow; StartFlow dispatches every job without needs. A
// job runs locally (queue:<type>) when its runner is empty, "self" or this
// agent and the local runner serves its type, else it is sent as a job
// Message on msg_out for the bridge; where it goes is context/route's
// rule, which the bridge and job.run share (route.go). Every job end —
// local or a remote result — goes through store.CompleteJob, which pushes
// the job key on jobs_done; one loop per context consumes that list and
// at once dispatches what became ready, with env = flow env ∪ job env ∪
// HYPHAE_IN_<NEED>_<KEY> for each result key of each job it needs. The
// flow's result collects "<job>.<key>". A failed job (after the runner's
// retries) cancels its dependents; the flow ends error once nothing is in
// flight (on_failure: wait) or at once, stopping what runs (stop). Cancel
// and the flow timeout stop what runs and cancel the rest.
//
// Every state change is one Lua script, guarded on the node's state, so
// duplicate or late events are harmless and each job is dispatched once.
// On Start (and for each context that appears) the scheduler puts back the
// events it had taken but not finished, settles jobs that ended while it
// was away, dispatches what is ready and re-arms timeouts: a supervisor
// killed mid-flow finishes the flow on restart with no job run twice. A
// remote job whose agent is down longer than RunnerLostAfter gets a new
// attempt elsewhere (or fails when retries are spent), with a warning that
// the lost attempt may still have run there; until then the job is shown
// unknown (model.NodeUnknown) and waits for the agent, whose result is
// taken when it returns. The lost attempt's late result is fenced off by
// its attempt number, and kept beside the job (model.ExtraLateResult).
//
// # Redis keys (context DB), besides the seed's flow, job and message hashes
//
//	flow_nodes:<flow id>     hash  job name → pending|ready|dispatched|completed|failed|cancelled
//	flow_results:<flow id>   hash  "<job>.<key>" → value, while the flow runs
//	flows_active             set   ids of started, unfinished flows
//	jobs_done:processing:<self>  list  jobs_done entries being handled
//
// Extra fields: flow on_failure, timeout (s), deadline_ms, started_at,
// ended_at, error; job continue_on_error, runner_pin (the file's runner),
// dispatched_at, flow_msg (message key of a remote attempt).
//
// # Sagas and reruns
//
// A job's compensate: runs when the flow ends error after the job
// completed, in reverse dependency order (compensate.go): node
// "<job>.compensate" in flow_nodes, flow fields compensation and
// compensation_error, job fields compensate (spec) and compensate_key.
// Rerun starts a new flow from an ended one, reusing the results of the
// jobs that completed outside what runs again (rerun.go): flow fields
// rerun_of and rerun_from, job field reused_from.
package scheduler
