package model

import (
	"encoding/json"
	"errors"
)

// Message is something sent to or received from another agent. Stored in
// the context DB as message:<caller_id>:<id>; its key travels on msg_out
// (to send) and msg_in (received).
//
// The job field is a JSON list of job objects; each object has the job's
// hash fields as keys and their encoded strings as values, so the same
// decoder serves a job hash and a job inside a message.
type Message struct {
	ID                uint64
	CallerID          uint64
	ContextID         uint64
	Message           string
	MessageType       MessageType
	MessageFormatType string
	Timeout           int64 // seconds until the sender gives up
	TimeoutAck        int64 // seconds to wait for an ack before resending
	TimeoutResult     int64 // seconds to wait for a result
	Job               []*RunnerJob
	Logs              []string
	Status            MessageStatus
	Dst               string // + recipient peer ID
	Error             string // +
	CreatedAt         int64
	UpdatedAt         int64
	Extra             Hash
}

// ToHash encodes m as a Redis hash.
func (m *Message) ToHash() Hash {
	w := newWriter(m.Extra)
	w.u64("id", m.ID)
	w.u64("caller_id", m.CallerID)
	w.u64("context_id", m.ContextID)
	w.str("message", m.Message)
	w.str("message_type", string(m.MessageType))
	w.str("message_format_type", m.MessageFormatType)
	w.i64("timeout", m.Timeout)
	w.i64("timeout_ack", m.TimeoutAck)
	w.i64("timeout_result", m.TimeoutResult)
	jobs := make([]Hash, 0, len(m.Job))
	for _, j := range m.Job {
		jobs = append(jobs, j.ToHash())
	}
	w.json("job", jobs)
	w.strList("logs", m.Logs)
	w.str("status", string(m.Status))
	w.str("dst", m.Dst)
	w.str("error", m.Error)
	w.i64("created_at", m.CreatedAt)
	w.i64("updated_at", m.UpdatedAt)
	return w.h
}

// MessageFromHash decodes a Message, including its embedded jobs.
func MessageFromHash(key string, h Hash) (*Message, error) {
	r := newReader(key, h)
	m := &Message{
		ID:                r.u64("id"),
		CallerID:          r.u64("caller_id"),
		ContextID:         r.u64("context_id"),
		Message:           r.str("message"),
		MessageType:       MessageType(r.str("message_type")),
		MessageFormatType: r.str("message_format_type"),
		Timeout:           r.i64("timeout"),
		TimeoutAck:        r.i64("timeout_ack"),
		TimeoutResult:     r.i64("timeout_result"),
		Logs:              r.strList("logs"),
		Status:            MessageStatus(r.str("status")),
		Dst:               r.str("dst"),
		Error:             r.str("error"),
		CreatedAt:         r.i64("created_at"),
		UpdatedAt:         r.i64("updated_at"),
	}
	m.Job = r.jobs("job")
	if m.MessageType != "" && !m.MessageType.Valid() {
		r.fail("message_type", string(m.MessageType), errUnknownEnum)
	}
	if m.Status != "" && !m.Status.Valid() {
		r.fail("status", string(m.Status), errUnknownEnum)
	}
	m.Extra = r.extra()
	return m, r.err
}

// jobs decodes a JSON list of job objects whose values may be strings or
// plain JSON scalars/lists/maps (re-encoded to their hash form).
func (r *reader) jobs(field string) []*RunnerJob {
	v, ok := r.raw(field)
	if !ok {
		return nil
	}
	var raw []map[string]any
	if err := unmarshalNumbers(v, &raw); err != nil {
		r.fail(field, v, errors.New("want a JSON list of job objects"))
		return nil
	}
	out := make([]*RunnerJob, 0, len(raw))
	for _, obj := range raw {
		h := Hash{}
		for k, x := range obj {
			switch t := x.(type) {
			case string:
				h[k] = t
			case nil:
			default:
				b, _ := json.Marshal(t)
				h[k] = string(b)
			}
		}
		j, err := JobFromHash(r.key+" "+field, h)
		if err != nil {
			if r.err == nil {
				r.err = err
			}
			return nil
		}
		out = append(out, j)
	}
	return out
}
