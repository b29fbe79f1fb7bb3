package model

import (
	"errors"
	"math"
	"regexp"
	"strconv"
)

// ValidScriptType reports whether t may name a script type: letters,
// digits and . _ + -, starting with a letter or digit. Flow files and the
// runner's executors configuration both hold to it, so a type one can
// configure is a type a flow can ask for.
func ValidScriptType(t string) bool { return scriptTypeName.MatchString(t) }

var scriptTypeName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._+-]*$`)

// RunnerJob is one script to run. Stored in its context's DB as
// job:<caller_id>:<id>.
type RunnerJob struct {
	ID            uint64
	CallerID      uint64
	ContextID     uint64
	Name          string // + name within a flow
	FlowID        uint64 // + flow it belongs to, 0 for none
	Script        string
	ScriptType    string
	Timeout       int64   // seconds; 0 = runner default
	Retries       int64   // extra attempts after the first
	MemoryMB      int64   // + memory limit in MiB; 0 = none (enforced where the runner has cgroups)
	CPU           float64 // + CPU limit in cores, e.g. 0.5; 0 = none (enforced likewise)
	EnvVars       map[string]string
	Result        map[string]string
	Prerequisites []string // names of external prerequisites (see job_prereq.go)
	Dependends    []uint64 // (sic: seed spelling)
	Status        JobStatus
	Runner        string // + runner id or peer ID that should run it
	Error         string // + why it failed
	Attempt       int64  // + 1 for the first attempt
	CreatedAt     int64
	UpdatedAt     int64
	Extra         Hash
}

// ToHash encodes j as a Redis hash.
func (j *RunnerJob) ToHash() Hash {
	w := newWriter(j.Extra)
	w.u64("id", j.ID)
	w.u64("caller_id", j.CallerID)
	w.u64("context_id", j.ContextID)
	if j.Name != "" {
		w.str("name", j.Name)
	}
	if j.FlowID != 0 {
		w.u64("flow_id", j.FlowID)
	}
	w.str("script", j.Script)
	w.str("script_type", j.ScriptType)
	w.i64("timeout", j.Timeout)
	w.i64("retries", j.Retries)
	if j.MemoryMB != 0 {
		w.i64("memory_mb", j.MemoryMB)
	}
	if j.CPU != 0 {
		w.str("cpu", strconv.FormatFloat(j.CPU, 'f', -1, 64))
	}
	w.strMap("env_vars", j.EnvVars)
	w.strMap("result", j.Result)
	w.names("prerequisites", j.Prerequisites)
	w.ids("dependends", j.Dependends)
	w.str("status", string(j.Status))
	w.str("runner", j.Runner)
	w.str("error", j.Error)
	w.i64("attempt", j.Attempt)
	w.i64("created_at", j.CreatedAt)
	w.i64("updated_at", j.UpdatedAt)
	return w.h
}

// JobFromHash decodes a RunnerJob. An unknown status is a FieldError.
func JobFromHash(key string, h Hash) (*RunnerJob, error) {
	r := newReader(key, h)
	j := &RunnerJob{
		ID:            r.u64("id"),
		CallerID:      r.u64("caller_id"),
		ContextID:     r.u64("context_id"),
		Name:          r.str("name"),
		FlowID:        r.u64("flow_id"),
		Script:        r.str("script"),
		ScriptType:    r.str("script_type"),
		Timeout:       r.i64("timeout"),
		Retries:       r.i64("retries"),
		MemoryMB:      r.i64("memory_mb"),
		CPU:           cores(r, "cpu"),
		EnvVars:       r.strMap("env_vars"),
		Result:        r.strMap("result"),
		Prerequisites: r.names("prerequisites"),
		Dependends:    r.ids("dependends"),
		Status:        JobStatus(r.str("status")),
		Runner:        r.str("runner"),
		Error:         r.str("error"),
		Attempt:       r.i64("attempt"),
		CreatedAt:     r.i64("created_at"),
		UpdatedAt:     r.i64("updated_at"),
	}
	if j.Status != "" && !j.Status.Valid() {
		r.fail("status", string(j.Status), errUnknownEnum)
	}
	if j.Timeout < 0 {
		r.fail("timeout", h["timeout"], errNegative)
	}
	if j.Retries < 0 {
		r.fail("retries", h["retries"], errNegative)
	}
	if j.MemoryMB < 0 {
		r.fail("memory_mb", h["memory_mb"], errNegative)
	}
	r.used[JobTimelineField] = true // the store's, read apart (store.Timeline); a save never writes it back
	r.used[JobLeaseField] = true    // the same (store.LeaseOf)
	j.Extra = r.extra()
	return j, r.err
}

// cores decodes a CPU limit: a finite decimal number of cores, at least 0.
func cores(r *reader, field string) float64 {
	v, ok := r.raw(field)
	if !ok {
		return 0
	}
	f, err := strconv.ParseFloat(v, 64)
	switch {
	case err != nil || math.IsNaN(f) || math.IsInf(f, 0):
		r.fail(field, v, errors.New("want a decimal number of cores such as 0.5 or 2"))
		return 0
	case f < 0:
		r.fail(field, v, errNegative)
		return 0
	}
	return f
}
