package model

import (
	"encoding/json"
	"fmt"
	"strconv"
	"time"
)

// Values of ExtraRunnerState.
const (
	// RunnerUnreachable: the agent running the job has been unreachable
	// for a while (supervisor.runner_grace); the job may be running or
	// done there. It is reconciled when the agent returns.
	RunnerUnreachable = "unreachable"
	// RunnerLost: the job was given up on after its agent stayed
	// unreachable past supervisor.runner_lost_after.
	RunnerLost = "lost"
)

// StateUnknown is how views show a job, or a flow's node, whose status is
// not final while its runner is unreachable (RunnerJob.Unreachable). It is
// never stored: the job hash keeps its seed status (docs/design.md, "Redis layout").
const StateUnknown = "unknown"

// NodeUnknown is StateUnknown as a flow view's node state (never stored in
// flow_nodes).
const NodeUnknown NodeState = StateUnknown

// Unreachable reports whether j has not ended and the agent it was sent
// to is unreachable, and since when.
func (j *RunnerJob) Unreachable() (since time.Time, ok bool) {
	if j.Status.Terminal() || j.Extra[ExtraRunnerState] != RunnerUnreachable {
		return time.Time{}, false
	}
	s, _ := strconv.ParseInt(j.Extra[ExtraUnreachableSince], 10, 64)
	return time.Unix(s, 0), true
}

// LostRunnerError is the error of a job given up on because the agent it
// was sent to (runner) stayed unreachable for d: the job may still have
// run there, so a retry may run it twice.
func LostRunnerError(runner string, d time.Duration) string {
	return fmt.Sprintf("runner %s unreachable for %v: lost (it may still have run there; a retry may run it twice)",
		runner, d.Round(time.Second))
}

// LateResult is a result that came from the agent a job was given up on
// (ExtraLostRunner) after the job had ended or moved on: kept on the job
// (ExtraLateResult) to show that the attempt ran there, without changing
// the job.
type LateResult struct {
	From    string            `json:"from"`
	Attempt int64             `json:"attempt"`
	Status  JobStatus         `json:"status"`
	Result  map[string]string `json:"result,omitempty"`
	Error   string            `json:"error,omitempty"`
	At      int64             `json:"at"` // when it came (unix s)
}

// Encode is r as stored in ExtraLateResult.
func (r *LateResult) Encode() string {
	b, _ := json.Marshal(r) // plain data always encodes
	return string(b)
}

// LateResult is the late result kept on j, or nil.
func (j *RunnerJob) LateResult() *LateResult {
	v := j.Extra[ExtraLateResult]
	if v == "" {
		return nil
	}
	var r LateResult
	if json.Unmarshal([]byte(v), &r) != nil {
		return nil
	}
	return &r
}

// LostRunnerFields are the fields that end, or retry, attempt of a job
// given up on because runner stayed unreachable: reason as its error, and
// the runner and attempt, so that a late result from there is kept
// (ExtraLateResult) rather than dropped.
func LostRunnerFields(runner string, attempt int64, reason string) Hash {
	return Hash{"error": reason, ExtraRunnerState: RunnerLost, ExtraLostRunner: runner,
		ExtraLostAttempt: strconv.FormatInt(attempt, 10)}
}
