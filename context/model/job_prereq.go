package model

import (
	"encoding/json"
	"errors"
	"strconv"
)

// A RunnerJob's DAG fields, as seed 001 and docs/design.md, "How Hyphae reads the specifications it follows" read them:
// dependends are ids of jobs of the same context (job:<caller_id>:<id>)
// that must finish before the job starts; prerequisites are names of
// external prerequisites, met when prereq:<name> exists in the context DB.
//
// Flows stored before this reading kept a job's upstream ids in
// prerequisites (JSON numbers) and its downstream ids in dependends. Such
// hashes still decode: a number in prerequisites reads as its digits, and
// Upstream reads a flow job's edges from where it was stored.

// ExtraUpstreamIn, on a job of a flow, says where its upstream ids are:
// UpstreamInDependends for flows made (or adopted) since dependends holds
// them; absent for a flow stored before, whose prerequisites hold them.
const ExtraUpstreamIn = "upstream_in"

// UpstreamInDependends is ExtraUpstreamIn on a flow job whose dependends
// are its upstream ids (and whose prerequisites are names).
const UpstreamInDependends = "dependends"

// errNames is the reason a prerequisites field is no list of names.
var errNames = errors.New("want a JSON list of names (strings, or ids as numbers)")

// names decodes a JSON list of names: strings, or numbers (read as their
// digits, as flows stored before kept ids there). null or a missing field
// is nil.
func (r *reader) names(field string) []string {
	v, ok := r.raw(field)
	if !ok {
		return nil
	}
	var raw []json.RawMessage
	if err := json.Unmarshal([]byte(v), &raw); err != nil {
		r.fail(field, v, errNames)
		return nil
	}
	if raw == nil {
		return nil
	}
	out := make([]string, 0, len(raw))
	for _, m := range raw {
		n, ok := nameOf(m)
		if !ok {
			r.fail(field, v, errNames)
			return nil
		}
		out = append(out, n)
	}
	return out
}

// names writes a JSON list of names. A name that is a decimal id as
// strconv writes it is written as a JSON number, as prerequisites held
// ids before, so hashes of flows stored before are rewritten byte for
// byte; it reads back as the same name.
func (w *writer) names(f string, v []string) {
	b := make([]byte, 0, 2+len(v)*8)
	b = append(b, '[')
	for i, s := range v {
		if i > 0 {
			b = append(b, ',')
		}
		if n, err := strconv.ParseUint(s, 10, 64); err == nil && strconv.FormatUint(n, 10) == s {
			b = append(b, s...)
			continue
		}
		q, _ := json.Marshal(s) // a string always encodes
		b = append(b, q...)
	}
	w.h[f] = string(append(b, ']'))
}

// nameOf reads one name: a JSON string, or a whole non-negative JSON
// number (an id, as flows stored before kept there) as its digits.
func nameOf(m json.RawMessage) (string, bool) {
	if len(m) > 0 && m[0] == '"' {
		var s string
		return s, json.Unmarshal(m, &s) == nil
	}
	s := string(m)
	_, err := strconv.ParseUint(s, 10, 64)
	return s, err == nil
}

// IsFlowJob reports whether j belongs to a flow (its scheduler, not the
// queue, orders it after its upstream jobs).
func (j *RunnerJob) IsFlowJob() bool { return j.FlowID != 0 }

// Upstream returns the ids of the jobs that must finish before j starts:
// its dependends, or, for a job of a flow stored before dependends held
// them, the ids its prerequisites held (a name that is no id is skipped).
func (j *RunnerJob) Upstream() []uint64 {
	if !j.legacyFlowEdges() {
		return j.Dependends
	}
	out := make([]uint64, 0, len(j.Prerequisites))
	for _, p := range j.Prerequisites {
		if n, err := strconv.ParseUint(p, 10, 64); err == nil {
			out = append(out, n)
		}
	}
	return out
}

// ExternalPrerequisites returns the names of j's external prerequisites:
// none for a job of a flow stored before (its prerequisites are edges).
func (j *RunnerJob) ExternalPrerequisites() []string {
	if j.legacyFlowEdges() {
		return nil
	}
	return j.Prerequisites
}

// SetUpstream records ids as the jobs j waits for, in dependends, and
// marks a flow job as keeping them there.
func (j *RunnerJob) SetUpstream(ids []uint64) {
	j.Dependends = append([]uint64{}, ids...)
	if j.FlowID != 0 {
		if j.Extra == nil {
			j.Extra = Hash{}
		}
		j.Extra[ExtraUpstreamIn] = UpstreamInDependends
	}
}

// legacyFlowEdges reports whether j is a flow job stored before
// dependends held upstream ids.
func (j *RunnerJob) legacyFlowEdges() bool {
	return j.FlowID != 0 && j.Extra[ExtraUpstreamIn] != UpstreamInDependends
}
