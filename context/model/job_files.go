package model

import "encoding/json"

// Files between jobs (docs/design.md, "Files between jobs"). The three
// fields live in the job's Extra, as JSON, so they travel with the job hash
// (to another agent too) and a plain Redis client sees them. The model
// keeps them as text: the files component (package files) decodes and
// checks them, and this floor imports nothing of it.
const (
	// ExtraOutputs: the job's output patterns, a JSON list of paths or
	// globs relative to its directory.
	ExtraOutputs = "outputs"
	// ExtraFiles: what the outputs matched when the job finished, a JSON
	// list of files.Entry (path, size, sha256, mode, chunking), written by
	// the agent that ran it (and brought home with its result).
	ExtraFiles = "files"
	// ExtraInputs: the files the job finds under in/ before it starts,
	// a JSON list of input sets (node/jobfiles: for each, the folder, the
	// agent that has the blobs, the job they are fetched for, the entries).
	ExtraInputs = "inputs"
)

// Outputs is j's output patterns (nil when it has none, or they do not
// decode: the runner then refuses the job with the reason, OutputsErr).
func (j *RunnerJob) Outputs() []string {
	out, _ := j.OutputsErr()
	return out
}

// OutputsErr is Outputs with the decoding error.
func (j *RunnerJob) OutputsErr() ([]string, error) {
	v := j.Extra[ExtraOutputs]
	if v == "" {
		return nil, nil
	}
	var out []string
	if err := json.Unmarshal([]byte(v), &out); err != nil {
		return nil, &FieldError{Field: ExtraOutputs, Value: v, Err: err}
	}
	return out, nil
}

// SetOutputs records j's output patterns (none removes the field).
func (j *RunnerJob) SetOutputs(patterns []string) {
	if len(patterns) == 0 {
		setExtra(&j.Extra, ExtraOutputs, "")
		return
	}
	b, _ := json.Marshal(patterns) // strings only
	setExtra(&j.Extra, ExtraOutputs, string(b))
}

// FilesJSON is j's recorded files as JSON ("" for none).
func (j *RunnerJob) FilesJSON() string { return j.Extra[ExtraFiles] }

// SetFilesJSON records j's files ("" removes them).
func (j *RunnerJob) SetFilesJSON(v string) { setExtra(&j.Extra, ExtraFiles, v) }

// InputsJSON is j's input sets as JSON ("" for none).
func (j *RunnerJob) InputsJSON() string { return j.Extra[ExtraInputs] }

// SetInputsJSON records j's input sets ("" removes them).
func (j *RunnerJob) SetInputsJSON(v string) { setExtra(&j.Extra, ExtraInputs, v) }

// ExtraFilesRef, on a job that ran on another agent and made files: its
// ref there, "<context>/<job key>", which its blobs are asked for (the
// origin keeps it beside ran_on).
const ExtraFilesRef = "files_ref"
