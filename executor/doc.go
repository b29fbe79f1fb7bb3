// Package executor is the runner role of a Hyphae agent (docs/design.md: "Redis layout"
// for its queues, "Running jobs" for execution): it takes jobs from the queue:<script_type> lists
// of the context DBs it serves, runs them as processes and writes status,
// result, error and logs back onto the job, so any client that follows the
// Redis contract (HSET job:<caller>:<id> …; LPUSH queue:<type> <key>) gets
// its job run. With a worker id it also serves the hero dispatcher
// protocol in DB 0. All Redis access goes through package store.
//
// # Taking work
//
// One dequeue loop per served context (the list comes from
// Config.Contexts, refreshed every ContextRefresh). A loop takes a
// concurrency slot, then runs one Lua script (store.ClaimJob) that tries
// the served queues in turn — rotating the start for fairness, leaving out
// those the last claims found empty and no push has reached since
// (queue_hints.go) — and, in the same step, moves the oldest job (the
// right end: producers LPUSH) into processing:<runner_id>, leases it (ZSET
// leases, member = job key, score = expiry; the job hash's lease field =
// "<attempt> <runner_id>"), sets status started and returns the hash. Nothing blocks a connection while queues are empty:
// the loop sleeps until a keyspace notification for one of its context's
// queue:* keys wakes it (all contexts share one pub/sub connection, which
// also carries stop requests), or for Poll. So N contexts cost N
// goroutines, not N×types blocked BLMOVE connections; a loop with nothing
// to do claims once in 5 min, sooner for a parked job's re-check
// (idle.go). The runner turns on the notifications (CONFIG SET
// notify-keyspace-events, adding "Kl" to what is set) and re-checks them
// every minute, and at once when the lease watch reconnects
// (lease_watch.go); where CONFIG is refused (managed or embedded servers)
// it polls every 200 ms. A
// component about to queue a job itself (the bridge, for a job from
// another agent) can instead claim it for this runner in its own round
// trip (Offer: a free slot is reserved until the claim is handed over).
//
// A job on the queue of a type this agent does not serve is failed by a
// sweeper within seconds with `no runner on this agent (<runner id>)
// serves script type "x"; it has: bash, noop, python, sh`. The sweeper
// learns of such queues from the same notifications, and by scanning each
// context for queue:* keys at start, every Sweep without notifications,
// and every 15 Sweeps with them. An entry that cannot be used goes to the
// context's dead_letter list with the reason (JSON: key, queue, reason,
// runner, at) and out of the processing list: a key that is missing, not
// a hash, or a job already ended is left as it is; a job hash with an
// unknown status, an attempt that is no whole number or other undecodable
// fields also ends status error with that reason, announced as any end is
// (reply:<key> is pushed, so a client's BLPOP returns).
//
// # Running a job
//
// Each attempt runs in <DataDir>/contexts/<N>/jobs/<caller>-<id>-<attempt>/:
// the script is written to script.<ext> there and run by its type's
// interpreter — sh, bash, python (python3 -u, resolved once through
// wrapper scripts such as pyenv shims), or a Config.Executors command line
// with "{file}" — in its own process group, with stdin /dev/null and a
// clean environment: PATH, HOME (the job directory), the flow's env_vars
// (when the job has flow_id), the job's env_vars, then HYPHAE_JOB_ID,
// HYPHAE_CONTEXT_ID, HYPHAE_CALLER_ID, HYPHAE_ATTEMPT and HYPHAE_RESULT
// (<dir>/result), each layer overriding the one before; a job whose env
// has HYPHAE_EVENT (a run an event started) also gets HYPHAE_EVENT_FILE,
// <dir>/event.json with the same payload. The built-in type
// "noop" runs nothing and finishes at once (to measure dispatch overhead).
//
// # Containment and limits
//
// Where cgroup v2 is usable (the agent is root, or runs in a delegated
// cgroup such as a systemd service with Delegate=yes) every attempt runs
// in a cgroup of its own, <agent's cgroup>/hyphae-<runner>/job-<context>-
// <caller>-<id>-<attempt> (hero-<id> for hero jobs), which the process
// enters as it is created (clone3 with CLONE_INTO_CGROUP; on older
// kernels a gate — a shell waiting on a pipe — holds it until the agent
// has moved it). A child that calls setsid leaves the process group but
// not the cgroup, so a timeout or stop kills it too (SIGTERM to every
// process of the cgroup, then cgroup.kill, or freeze and SIGKILL each
// where the kernel lacks cgroup.kill), whatever is left when the main
// process exits is killed, and the cgroup is removed when the attempt
// ends. A restarted runner kills what its previous run left in its
// cgroups. The job fields memory_mb and cpu (cores) become memory.max
// (swap off, an OOM kill ends the whole job) and cpu.max; on hybrid
// machines, whose memory and cpu controllers are bound to cgroup v1, the
// cgroup v1 memory.limit_in_bytes and cpu.cfs_quota_us of a job directory
// there instead (the process joins it through the gate). A job the kernel
// killed for its memory ends error "out of memory: the job went over
// memory_mb N and the kernel killed it". Elsewhere (no cgroup2, no
// permission, Config.NoCgroups, not Linux) jobs run in process groups,
// and a job asking for limits runs without them, as Nomad's raw_exec runs
// a task on a client without cgroups: its log gets "[hyphae] warning:
// memory_mb 50 not enforced: …" and its result limit_warnings.
// Runner.Isolation says which applies, for `hyphae info`.
//
// stdout and stderr lines go to <dir>/output.log (at most OutputBytes) and
// to the Redis list logs:<job key> (at most LogLines lines and LogBytes
// bytes; batched every 20 ms and announced on pub/sub channel
// logs:<N>:<job key>, which store.FollowLogs uses to follow a job live
// until it ends). A log over its cap keeps its first half as it comes and,
// when the job ends, a marker line saying how many lines were left out and
// the newest lines (logcap.go).
//
// The result map is the result file's key=value lines (blank and '#'
// lines skipped; a line without '=' or with an empty key is ignored,
// logged, and counted in result_warnings), plus stdout (first StdoutCap
// bytes, with a truncation marker) and exit_code (128+signal when a signal
// ended it). A zero exit status ends the job finished; anything else ends
// it error with a reason: "exit status 3: <last stderr line>",
// "timeout after Ns" (the group got SIGTERM, then SIGKILL after
// KillGrace), "stopped", "drained". Failures other than stop are retried
// while attempt ≤ retries, after RetryBackoff·2^(attempt-1) (capped at
// RetryBackoffMax), as a new attempt via store.RequeueJob; every write of
// an attempt is fenced on its number, so a late report of a superseded
// attempt changes nothing. Final writes go through store.CompleteLeased,
// which is store.CompleteJob's effects (reply:<key> for waiters, jobs_done
// for the scheduler, remote_done for the bridge) plus the lease release, in
// one script. OnJobStarted hooks run as an attempt starts (the bridge
// tells a remote job's origin that it runs). OnJobEnding hooks run just
// before that write, with the job as it will be written and the last
// lines of its log (the bridge sends a remote job's result home while the
// write is under way); OnJobDone hooks run after it. When a job finishes while its context's loop waits for a
// slot (more jobs are queued) and no other context's loop does, the
// completion and the claim of the context's next job go out in one round
// trip (store.CompleteAndClaim) and the slot passes to that job.
//
// # Crashes, stops, shutdown
//
// A heartbeat renews the leases of the attempts in hand every Heartbeat;
// an attempt whose lease was taken over is killed. A reaper (every
// Heartbeat) takes over expired leases in the served contexts and puts
// their jobs back as a new attempt, or fails them when retries are spent;
// at start a runner does the same, at once, for what its processing list
// still holds (and kills the orphaned attempts: their cgroups, and their
// process groups found through /proc by their job directory). So kill -9 mid-job never
// leaves a job in started.
//
// Stop marks stop:<job key> with the attempt and announces it: a running
// attempt is killed within a second, a queued job is taken off its queue
// and ended "error: stopped", and a marked job is never started. Shutdown
// stops taking work, lets running jobs finish until its context ends, then
// kills them ("drained": put back when retries allow).
//
// # Hero dispatcher protocol (DB 0, seed 004)
//
// With Config.WorkerID set the runner serves hero:work_queue:<worker_id>:
// clients LPUSH a job id; the worker takes ids from the left as BLPOP does
// (into hero:processing:<worker_id>, so a restarted worker can answer
// them). The job hash hero:job:<id> holds:
//
//	id             the job id (a UUID)
//	script         the script text
//	script_type    sh, bash, python, … (default sh; the seed's Rhai and
//	               HeroScript are not run here)
//	env_vars       JSON object of strings (optional)
//	timeout        seconds, or a Go duration like "90s" (default: DefaultTimeout)
//	retries        runs after the first when one fails (default 0)
//	concurrent     true (default when absent): runs beside the worker's
//	               other jobs; false: runs in the work loop's stead, which
//	               takes no other job until it ended
//	prerequisites  JSON array of hero job ids that must finish first
//	dependencies   the same (a JSON array, or ids separated by commas)
//	log_path       file the job's output (stdout and stderr lines) is
//	               written to after each run, in the worker's log
//	               directory <DataDir>/hero/<worker_id>/logs only: a
//	               relative path lies under it, an absolute one must name
//	               a file there once `..` and symlinks are resolved, else
//	               the job ends error "log_path …: outside the allowed
//	               directory <dir> …" before it runs and nothing is
//	               created; rewritten as the file it names (written)
//	status         dispatched → started → finished | error (written by the
//	               worker; dispatched again when requeued)
//	output         stdout, capped like a job's (written)
//	error          reason when status is error (written)
//	exit_code      the process's exit code (written)
//	result         JSON map, as for jobs (written)
//	attempts       runs started so far (written)
//	worker_id      the worker that ran it (written)
//	created_at     ISO-8601 (RFC 3339, UTC), set by the client
//	updated_at     ISO-8601, rewritten by the worker
//
// The environment is PATH, HOME, env_vars, HYPHAE_JOB_ID (the hero id),
// HYPHAE_WORKER_ID, HYPHAE_ATTEMPT and HYPHAE_RESULT. A job naming other
// jobs gives up its slot (and lets the work loop go on) until they all
// finished, then runs; when one ended error or has no hash it ends error
// "impossible: hero job <id> ended error" ("… does not exist"). A failed
// run is retried while retries allow (after the jobs' RetryBackoff,
// doubled per run, holding its slot); a timeout ends it at once with
// error "timeout". When the job ends the worker LPUSHes on
// hero:reply:<id> (kept 24 h) the raw output, or "error: <reason>" when
// it ended error (the seed replies only on success), so BLPOP
// hero:reply:<id> returns it. An id LPUSHed on hero:stop_queue:<worker_id>
// ends a job that has not run yet (queued, or waiting for the jobs it
// names) with error "stopped", and kills a running one: error
// "stopped_by_request". A worker that starts finds the jobs an earlier
// run of its worker id left started in hero:processing:<worker_id>: each
// is requeued (status dispatched, LPUSHed on the work queue) while its
// retries allow, else ended "worker died while the job ran (no retries
// left)". A worker id is served by one agent at a time. The output is
// also kept in <DataDir>/hero/<worker_id>/<id>/output.log.
package executor
