package model

import "strconv"

// Fields of ours that the bus keeps on seed hashes, in their Extra (docs/design.md
// §3: additions use names of their own). Code reads and writes them
// through these names, or through the typed accessors below.
const (
	// JobTimelineField, on a job hash: its timeline, a JSON list the
	// store's scripts append to as the job moves (store.Timeline reads
	// it). It is never in a RunnerJob's Extra, so saving a job loaded
	// before a move cannot write an older timeline back.
	JobTimelineField = "timeline"
	// JobLeaseField, on a job hash: the runner holding its lease,
	// "<attempt> <runner id>", written by the store's scripts with the
	// job's moves; never in a RunnerJob's Extra, like the timeline.
	JobLeaseField = "lease"
	// ExtraMessageKey, on a job sent to another agent: its job message.
	ExtraMessageKey = "message_key"
	// ExtraOriginPeer, ExtraOriginContext, ExtraOriginJob,
	// ExtraOriginAttempt and ExtraOriginRef, on a job received from
	// another agent: where it came from (see JobOrigin). ExtraOriginJob
	// also names, on a stop message, the origin job to stop.
	ExtraOriginPeer    = "origin_peer"
	ExtraOriginContext = "origin_context"
	ExtraOriginJob     = "origin_job"
	ExtraOriginAttempt = "origin_attempt"
	ExtraOriginRef     = "origin_ref"
	// ExtraFrom, on a message received from another agent: its sender's
	// peer ID (the message also keeps ExtraOriginRef, its ref there).
	ExtraFrom = "from"
	// ExtraResultOf, on a result message: the key of the job it reports.
	ExtraResultOf = "result_of"
	// ExtraSends, on a message being sent: how many times it went out.
	ExtraSends = "sends"
	// ExtraRanOn, on a job that ran on another agent: that agent's peer ID.
	ExtraRanOn = "ran_on"
	// ExtraRunnerState, on a job sent to another agent: RunnerUnreachable
	// while that agent is unreachable (the job's state is unknown, see
	// RunnerJob.Unreachable), RunnerLost once the job was given up on
	// there; "" or absent otherwise. The seed's status field is untouched.
	ExtraRunnerState = "runner_state"
	// ExtraUnreachableSince, with ExtraRunnerState: since when (unix s).
	ExtraUnreachableSince = "unreachable_since"
	// ExtraLostRunner and ExtraLostAttempt, on a job sent to another
	// agent: the agent and attempt given up on as lost (the attempt may
	// still have run there); a result that agent sends later for that
	// attempt is kept in ExtraLateResult (a LateResult, JSON) and changes
	// nothing else.
	ExtraLostRunner  = "lost_runner"
	ExtraLostAttempt = "lost_attempt"
	ExtraLateResult  = "late_result"
	// ExtraMadeFor, on a context: why the agent made it by itself, not at a
	// user's request (MadeForOutbox); `context create` with its id adopts
	// it and drops the field.
	ExtraMadeFor = "made_for"
	// ExtraBackoffFrom, on a message being sent: the sends count at which
	// its retransmission backoff started again (its recipient came back).
	ExtraBackoffFrom = "backoff_from"
)

// MadeForOutbox is ExtraMadeFor on the context an agent with none made to
// record the jobs it sends to other agents.
const MadeForOutbox = "outbox"

// JobOrigin is where a job received from another agent came from: the
// sender, its context and job (key job:<caller>:<id> there) and attempt,
// and the ref of the job message that brought it.
type JobOrigin struct {
	Peer    string
	Context uint64
	Job     string
	Attempt int64
	Ref     string
}

// Origin is where j came from; the zero JobOrigin for a job that did not
// come from another agent (see Received).
func (j *RunnerJob) Origin() JobOrigin {
	ctx, _ := strconv.ParseUint(j.Extra[ExtraOriginContext], 10, 64)
	attempt, _ := strconv.ParseInt(j.Extra[ExtraOriginAttempt], 10, 64)
	return JobOrigin{Peer: j.Extra[ExtraOriginPeer], Context: ctx, Job: j.Extra[ExtraOriginJob],
		Attempt: attempt, Ref: j.Extra[ExtraOriginRef]}
}

// Received reports whether o names a sender and a job message, as a job
// received from another agent has.
func (o JobOrigin) Received() bool { return o.Peer != "" && o.Ref != "" }

// SetOrigin records o on j.
func (j *RunnerJob) SetOrigin(o JobOrigin) {
	if j.Extra == nil {
		j.Extra = Hash{}
	}
	j.Extra[ExtraOriginPeer] = o.Peer
	j.Extra[ExtraOriginContext] = strconv.FormatUint(o.Context, 10)
	j.Extra[ExtraOriginJob] = o.Job
	j.Extra[ExtraOriginAttempt] = strconv.FormatInt(o.Attempt, 10)
	j.Extra[ExtraOriginRef] = o.Ref
}

// MessageKey is the key of the job message that sent j to another agent
// ("" for a job not sent).
func (j *RunnerJob) MessageKey() string { return j.Extra[ExtraMessageKey] }

// SetMessageKey records the job message that sends j.
func (j *RunnerJob) SetMessageKey(key string) {
	if j.Extra == nil {
		j.Extra = Hash{}
	}
	j.Extra[ExtraMessageKey] = key
}
