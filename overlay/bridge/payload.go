package bridge

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/hyphae-run/hyphae/context/model"
)

// payload is the plaintext inside an envelope.
type payload struct {
	Ref       string            `json:"ref,omitempty"`        // sender's "<ctx>/<message key>"
	AckOf     string            `json:"ack_of,omitempty"`     // ack and error: the ref answered
	OriginCtx uint64            `json:"origin_ctx,omitempty"` // job, stop, result: where the origin job lives
	OriginJob string            `json:"origin_job,omitempty"` // the origin job key
	Attempt   int64             `json:"attempt,omitempty"`    // the origin job's attempt
	Message   model.Hash        `json:"message,omitempty"`    // job, chat, mail: the message hash
	Job       model.Hash        `json:"job,omitempty"`        // job: the job hash
	Status    string            `json:"status,omitempty"`     // result: finished or error; ack: started when the job runs; status answer: the job's
	Result    map[string]string `json:"result,omitempty"`
	Error     string            `json:"error,omitempty"`    // result and error: why
	Logs      []string          `json:"logs,omitempty"`     // result: last output lines; status answer: lines from log_from
	Acks      []string          `json:"acks,omitempty"`     // any type: refs of the recipient's messages acknowledged too
	LogFrom   int64             `json:"log_from,omitempty"` // status request: the first log line wanted
	Next      int64             `json:"next,omitempty"`     // status answer: the index after its last line
	More      bool              `json:"more,omitempty"`     // status answer: lines remain after Next
	LogMeta   []string          `json:"log_meta,omitempty"` // status answer: each line's "<unix ms> <stream>" (store.LogLine.Meta; "" unknown)
	// TraceID, on a result: the job's traceparent, for the origin's log
	// and result span (a job's own travels in its hash, Job).
	TraceID string `json:"trace_id,omitempty"`
	// Files and FilesRef, on a result: the job's files (JSON, as its
	// files field) and its ref at the runner, which they are asked for.
	Files    string `json:"files,omitempty"`
	FilesRef string `json:"files_ref,omitempty"`
	// FilesList, on a result whose files list is too long for one
	// message (then Files is empty): the entry (JSON, as one of a files
	// list) of the list's blob at the runner, asked for through FilesRef
	// (files_apart.go).
	FilesList string `json:"files_list,omitempty"`
	// InputsList, on a job whose inputs list is too long for one message
	// (then the job's inputs field holds inputsApartMark): the entry of
	// the list's blob at the origin, asked for through the origin job's
	// ref (files_apart_inputs.go).
	InputsList string `json:"inputs_list,omitempty"`
}

func (p *payload) encode() []byte {
	b, err := json.Marshal(p)
	if err != nil {
		panic("bridge: payload: " + err.Error()) // plain data only
	}
	return b
}

func decodePayload(b []byte) (*payload, error) {
	var p payload
	if err := json.Unmarshal(b, &p); err != nil {
		return nil, fmt.Errorf("payload: %w", err)
	}
	return &p, nil
}

// makeRef names a message at its sender.
func makeRef(ctxID uint64, key string) string { return strconv.FormatUint(ctxID, 10) + "/" + key }

// parseRef splits a ref made by makeRef.
func parseRef(ref string) (uint64, string, error) {
	a, key, ok := strings.Cut(ref, "/")
	id, err := strconv.ParseUint(a, 10, 64)
	if !ok || err != nil || key == "" {
		return 0, "", fmt.Errorf("bad ref %q", ref)
	}
	return id, key, nil
}
