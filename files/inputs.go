package files

import (
	"encoding/json"
	"fmt"
)

// Input is one set of files a job finds under in/ before it starts: a
// producer's files (Name the producer, so in/<Name>/), or files shipped
// with the job (Name "", in/ itself). Peer is the agent whose content store
// has the blobs ("" or this agent: the local store), Ref the job they are
// asked for there (the serving agent's Authorizer judges the pair).
type Input struct {
	Name  string  `json:"name,omitempty"`
	Peer  string  `json:"peer,omitempty"`
	Ref   string  `json:"ref,omitempty"`
	Files []Entry `json:"files"`
}

// DecodeInputs reads a job's input sets (model ExtraInputs) and checks
// every name and entry; "" is none.
func DecodeInputs(v string) ([]Input, error) {
	if v == "" {
		return nil, nil
	}
	var ins []Input
	if err := json.Unmarshal([]byte(v), &ins); err != nil {
		return nil, fmt.Errorf("files.DecodeInputs: %w: %v", ErrBadEntry, err)
	}
	for _, in := range ins {
		if in.Name != "" {
			if err := CheckName(in.Name); err != nil {
				return nil, fmt.Errorf("files.DecodeInputs: %q: %w", in.Name, err)
			}
		}
		for _, e := range in.Files {
			if err := e.Check(); err != nil {
				return nil, fmt.Errorf("files.DecodeInputs: %w", err)
			}
		}
	}
	return ins, nil
}

// DecodeEntries reads a job's files (model ExtraFiles) and checks each
// entry; "" is none.
func DecodeEntries(v string) ([]Entry, error) {
	if v == "" {
		return nil, nil
	}
	var es []Entry
	if err := json.Unmarshal([]byte(v), &es); err != nil {
		return nil, fmt.Errorf("files.DecodeEntries: %w: %v", ErrBadEntry, err)
	}
	for _, e := range es {
		if err := e.Check(); err != nil {
			return nil, fmt.Errorf("files.DecodeEntries: %w", err)
		}
	}
	return es, nil
}

// EncodeJSON is v (entries or inputs) as the JSON of a job's field; ""
// for an empty list.
func EncodeJSON[T any](v []T) string {
	if len(v) == 0 {
		return ""
	}
	b, err := json.Marshal(v)
	if err != nil {
		panic("files: encode: " + err.Error()) // plain data only
	}
	return string(b)
}

// CheckPattern refuses an output pattern Build would refuse (empty,
// absolute, leaving the directory, malformed), so that a submission with
// one fails at once rather than when the job ends.
func CheckPattern(p string) error {
	_, err := cleanPattern(p)
	return err
}

// WithDefaults is l with every zero bound at its default.
func (l Limits) WithDefaults() Limits { return l.withDefaults() }
