package flowfile

import "strings"

// The env a flow's jobs see of one another: a job's result keys reach the
// jobs that need it as HYPHAE_IN_<JOB>_<KEY>, and the compensation of a
// job as HYPHAE_RESULT_<KEY>; job names must map to distinct <JOB> parts
// (validate.go).

// EnvName maps a job name or result key to its part of an env var name:
// upper-cased, every character other than A-Z and 0-9 replaced by '_'.
func EnvName(s string) string {
	b := []byte(strings.ToUpper(s))
	for i, c := range b {
		if (c < 'A' || c > 'Z') && (c < '0' || c > '9') {
			b[i] = '_'
		}
	}
	return string(b)
}

// InputVar is the env var through which result key of job reaches the
// jobs that need it: HYPHAE_IN_<JOB>_<KEY>.
func InputVar(job, key string) string {
	return "HYPHAE_IN_" + EnvName(job) + "_" + EnvName(key)
}

// ResultVar is the env var through which result key of a job reaches its
// compensation: HYPHAE_RESULT_<KEY>.
func ResultVar(key string) string { return "HYPHAE_RESULT_" + EnvName(key) }

// EnvScheduleTick is the env var (unix seconds) that tells a scheduled
// run which tick started it.
const EnvScheduleTick = "HYPHAE_SCHEDULE_TICK"

// Env vars of a run an event started (its flow env, so every job has
// them).
const (
	EnvEventName     = "HYPHAE_EVENT_NAME"
	EnvEvent         = "HYPHAE_EVENT" // the payload, JSON
	EnvEventID       = "HYPHAE_EVENT_ID"
	EnvCorrelationID = "HYPHAE_CORRELATION_ID"
)
