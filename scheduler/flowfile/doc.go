// Package flowfile is the flow-file language: the types of a parsed flow
// (File, JobSpec and their parts), Parse and Validate, cycle detection and
// the jobs' depths. It reads text and checks it; it touches no Redis and
// knows no store: package scheduler runs what it returns. docs/flows.md
// is the reference of every key; docs/flow.schema.json says the same as a
// JSON Schema (the tests hold the three together).
//
//	name: nightly                 # default: the file name without extension
//	context: 1                    # context id (or given by the caller)
//	env: {TARGET: /srv/data}      # for every job
//	timeout: 1h                   # whole flow; a duration or whole seconds
//	on_failure: wait              # wait (default) | stop
//	jobs:
//	  snapshot:
//	    type: sh                  # required: sh, bash, python, or a configured type
//	    script: 'echo "name=snap-1" >> "$HYPHAE_RESULT"'
//	    timeout: 10m
//	    retries: 2                # extra attempts, run by the runner
//	  upload:
//	    type: python
//	    script_file: upload.py    # relative to the flow file; not with script
//	    needs: [snapshot]         # one name or a list
//	    runner: 12D3KooW...       # self | peer ID | runner:<id>; default: any runner of the type
//	    env: {MODE: fast}
//	    continue_on_error: true   # a failure neither fails the flow nor blocks dependents
//
// Decoding is strict: unknown keys, duplicate keys or job names, unknown or
// self needs, cycles (named: "cycle: a -> b -> a", read "a needs b"),
// empty scripts, script and script_file together, bad durations, and job
// names that do not map to env var names are errors with file and line,
// all reported at once. The agent's flow.create also refuses a script type
// that is neither built in nor served by any agent it knows, up or not
// (UnknownTypes); one that no runner up today serves is only a warning
// (CheckTypes): runners come and go.
package flowfile
