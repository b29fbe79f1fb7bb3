package config

// Example is the commented config `hyphae init` writes; configs/hyphae.yaml
// holds the same text. Every key is optional.
const Example = `# Hyphae agent configuration. Every key is optional; the values shown
# are the defaults. Flags of 'hyphae run' override this file.

# Where the actor key, API token, embedded Redis and job files live.
# data_dir: ~/.hyphae

# What this agent does: supervisor (owns contexts, runs flows, routes jobs)
# and/or runner (executes jobs).
roles: [supervisor, runner]

log:
  level: info        # debug, info, warn, error
  format: text       # text or json

redis:
  # An existing Redis: redis://[user:pass@]host:port, rediss://..., unix:///path.
  # Empty: the agent runs its own (redis-server child with AOF in data_dir
  # when installed, otherwise an in-process store that keeps nothing).
  url: ""
  databases: 256     # for the embedded redis-server: contexts are DB 1..255

api:
  listen: 127.0.0.1:9652   # JSON-RPC over HTTP, token in <data_dir>/api.token; "off" = unix socket only
  # socket_group: ""       # a group whose members may use the CLI (the socket); empty: the agent user's alone

overlay:
  listen: [/ip4/0.0.0.0/tcp/4001, /ip4/0.0.0.0/udp/4001/quic-v1]
  bootstrap: []            # e.g. /ip4/192.0.2.10/tcp/4001/p2p/12D3KooW...
  mdns: true               # find agents on the LAN by themselves
  dht: true                # find agents through any shared bootstrap peer
  swarm_key: ""            # path to a swarm key: only agents holding it can connect
  relay_service: false     # act as a relay for agents behind NAT (public nodes)
  relays: []               # relays to use when this agent is behind NAT; default the bootstrap peers
  reachability: auto       # private: behind NAT, reserve a relay slot at once; public; auto: guess
  nat_port_map: true       # UPnP / NAT-PMP
  direct: true             # messages to a connected agent on a direct stream; false = gossipsub only
  presence_interval: 3s
  forget_after: 24h        # a peer down longer than this leaves the peer table

runner:
  concurrency: 0           # jobs at once; 0 = number of CPUs
  default_timeout: 1h      # for jobs whose timeout is 0
  worker_id: ""            # serve the hero dispatcher queues of this worker id
  python: ""               # interpreter for python jobs; default python3 on PATH
  cgroups: true            # each job in its own cgroup where cgroup v2 is usable; false: process groups
  drain_grace: 30s         # on SIGTERM / hyphae drain, running jobs get this long to finish
  user: ""                 # run jobs as this unprivileged user (agent must be root; data dir e.g. /var/lib/hyphae)
  max_in_flight_per_context: 0  # jobs of one context held at once, beside concurrency; 0 = no cap (docs/flow-control.md)
  types: {}                # caps per script type, e.g. {python: {max_in_flight: 2}}
  isolation:
    remote: contained      # jobs from other actors: own user, namespaces, the data dir hidden; host: uncontained
    own: host              # this agent's own jobs run as configured; contained: contain them too
    # user: ""             # contained jobs run as this user (agent must be root); empty: one uid per context from 61184
    pids_max: 512          # processes a contained job may have where cgroups allow; -1: no limit

# Extra script types: a command line where {file} is the script's path.
executors: {}
#  v: [v, run, "{file}"]
#  rust: [rust-script, "{file}"]

supervisor:
  runner_grace: 30s        # a runner silent this long: its jobs show "unknown" until it returns with their results
  runner_lost_after: 1h    # silent this long: its jobs are lost (flow jobs with retries run elsewhere; they may have run twice)

bus:
  timeout_ack: 3s          # resend a message not acknowledged by then
  timeout: 10m             # give up on a message after this
  skew: 2m                 # accepted clock difference between agents
  # plain: false           # true: every shortcut of the bus off (ARCHITECTURE.md); slower, same behaviour

# What has ended is kept for a while, then removed with its logs and job
# directories (hyphae prune does it at once). Nothing running, nor anything
# a running flow or an unanswered remote job needs, is ever removed.
retention:
  enabled: true            # sweep every interval; false: only 'hyphae prune' removes anything
  max_age: 168h            # finished/failed jobs, ended flows, settled messages older than this go
  max_jobs: 10000          # ended jobs kept per context, newest first (a flow's jobs go with the flow)
  max_flows: 1000          # ended flows kept per context
  max_messages: 10000      # settled messages kept per context; msg_in is trimmed to this length
  interval: 1m             # between sweeps
  log_bytes: 256KiB        # a job's log in Redis: the first half, a marker, the last lines
  output_bytes: 10MiB      # a job's output.log on disk, capped the same way

# Spans over OTLP/HTTP (docs/tracing.md); off: trace ids only, nothing exported.
trace:
  # otlp_endpoint: ""      # e.g. http://127.0.0.1:4318; empty: OTEL_EXPORTER_OTLP_ENDPOINT, else off

# Idempotency keys (docs/idempotency.md): a second submission with the same
# --idempotency-key within this window returns the first job or flow.
idempotency:
  retention: 24h

# Poison quarantine (docs/idempotency.md): when a job's last after_failures
# attempts in a row failed, the attempt after them does not run: the job
# ends error and goes to its context's dead letters (hyphae deadletter).
quarantine:
  after_failures: 5        # negative: never

# A circuit breaker per peer this agent sends jobs to (docs/breakers.md):
# after threshold faults of the peer in a row (refused, unacknowledged, no
# result, lost; not a script's failure), jobs go to another registered
# runner or wait, and jobs addressed to it are refused, for the cool-down;
# then one probe job goes, and its success closes it.
breaker:
  threshold: 5             # -1: off
  window: 1m               # the faults count only within this span
  cooldown: 30s

# Files between jobs (docs/design.md): a job's outputs, kept in the content
# store <data_dir>/files until the jobs that hold them are pruned.
files:
  max_file_mb: 4096        # one output or input file
  max_job_mb: 16384        # one job's files together
  max_store_mb: 65536      # the content store; past it, what no job holds is pruned first
`
