package control

import (
	"cmp"
	"encoding/json"
	"errors"
	"strconv"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/node/api"
)

// The seed models as the API takes them in `<object>.create` (DESIGN.md
// §8): every field a Seed* answer carries is accepted, so an object read
// back can be sent again; ids left out (0) are allocated.

// SeedJobIn is a RunnerJob given to job.create (or inside a message).
type SeedJobIn struct {
	ID            uint64            `json:"id,omitempty"`
	CallerID      uint64            `json:"caller_id,omitempty"`
	ContextID     uint64            `json:"context_id,omitempty"`
	Script        string            `json:"script"`
	ScriptType    string            `json:"script_type,omitempty"`
	Executor      string            `json:"executor,omitempty"` // seed 002's name for script_type
	Timeout       int64             `json:"timeout,omitempty"`
	Retries       int64             `json:"retries,omitempty"`
	EnvVars       map[string]string `json:"env_vars,omitempty"`
	Result        map[string]string `json:"result,omitempty"`
	Prerequisites []string          `json:"prerequisites,omitempty"`
	Dependends    []uint64          `json:"dependends,omitempty"`
	Status        string            `json:"status,omitempty"`
	CreatedAt     int64             `json:"created_at,omitempty"`
	UpdatedAt     int64             `json:"updated_at,omitempty"`
	Name          string            `json:"name,omitempty"`
	Runner        string            `json:"runner,omitempty"`
	Error         string            `json:"error,omitempty"`
	Attempt       int64             `json:"attempt,omitempty"`
}

// model turns in into a RunnerJob of context ctxID and caller (the
// defaults for fields left out); field names errors as at (e.g. "job").
// It goes through the job's hash form, so the model decodes it exactly as
// it decodes a hash a client wrote.
func (in *SeedJobIn) model(at string, ctxID, caller uint64) (*model.RunnerJob, error) {
	if in.ScriptType == "" {
		in.ScriptType = in.Executor
	}
	switch {
	case in.ContextID != 0 && in.ContextID != ctxID:
		return nil, api.InvalidParams(at+".context_id", "is %d, but the call is for context %d", in.ContextID, ctxID)
	case in.Script == "":
		return nil, api.InvalidParams(at+".script", "required: the script to run")
	case in.ScriptType == "" || !model.ValidScriptType(in.ScriptType):
		return nil, api.InvalidParams(at+".script_type", "%q: want a script type such as python, sh or v", in.ScriptType)
	case in.Timeout < 0 || in.Retries < 0:
		return nil, api.InvalidParams(at+".timeout", "timeout and retries must not be negative")
	case in.Status != "" && !model.JobStatus(in.Status).Valid():
		return nil, api.InvalidParams(at+".status", "%q: want dispatched, waiting_for_prerequisites, started, error or finished", in.Status)
	}
	h := model.Hash{
		"id": u64(in.ID), "caller_id": u64(cmp.Or(in.CallerID, caller)), "context_id": u64(ctxID),
		"script": in.Script, "script_type": in.ScriptType, "timeout": i64(in.Timeout), "retries": i64(in.Retries),
		"env_vars": jsonOf(nzm(in.EnvVars)), "result": jsonOf(nzm(in.Result)),
		"prerequisites": jsonOf(nzs(in.Prerequisites)), "dependends": jsonOf(nz(in.Dependends)),
		"status": cmp.Or(in.Status, string(model.JobDispatched)), "created_at": i64(in.CreatedAt),
		"updated_at": i64(in.UpdatedAt), "name": in.Name, "runner": in.Runner, "error": in.Error,
		"attempt": i64(in.Attempt),
	}
	j, err := model.JobFromHash(at, h)
	var fe *model.FieldError
	if errors.As(err, &fe) {
		return nil, api.InvalidParams(at+"."+fe.Field, "%v", fe.Err)
	}
	return j, err
}

// SeedFlowIn is a Flow given to flow.create: jobs are ids of jobs of the
// flow's caller in its context.
type SeedFlowIn struct {
	ID        uint64            `json:"id,omitempty"`
	CallerID  uint64            `json:"caller_id,omitempty"`
	ContextID uint64            `json:"context_id,omitempty"`
	Jobs      []uint64          `json:"jobs"`
	EnvVars   map[string]string `json:"env_vars,omitempty"`
	Result    map[string]string `json:"result,omitempty"`
	Status    string            `json:"status,omitempty"`
	CreatedAt int64             `json:"created_at,omitempty"`
	UpdatedAt int64             `json:"updated_at,omitempty"`
	Name      string            `json:"name,omitempty"`
	Error     string            `json:"error,omitempty"`
}

// SeedMessageIn is a Message given to message.create.
type SeedMessageIn struct {
	ID                uint64       `json:"id,omitempty"`
	CallerID          uint64       `json:"caller_id,omitempty"`
	ContextID         uint64       `json:"context_id,omitempty"`
	Message           string       `json:"message,omitempty"`
	MessageType       string       `json:"message_type"`
	MessageFormatType string       `json:"message_format_type,omitempty"`
	Timeout           int64        `json:"timeout,omitempty"`
	TimeoutAck        int64        `json:"timeout_ack,omitempty"`
	TimeoutResult     int64        `json:"timeout_result,omitempty"`
	Job               []*SeedJobIn `json:"job,omitempty"`
	Logs              []string     `json:"logs,omitempty"`
	Status            string       `json:"status,omitempty"`
	CreatedAt         int64        `json:"created_at,omitempty"`
	UpdatedAt         int64        `json:"updated_at,omitempty"`
	Dst               string       `json:"dst,omitempty"`
	Error             string       `json:"error,omitempty"`
}

// SeedRunnerIn is a Runner given to runner.create. Secret (seed 002) is
// kept in the record and never shown.
type SeedRunnerIn struct {
	ID          uint64   `json:"id,omitempty"`
	Pubkey      string   `json:"pubkey,omitempty"`
	Address     string   `json:"address,omitempty"`
	Topic       string   `json:"topic,omitempty"`
	Local       bool     `json:"local,omitempty"`
	ScriptTypes []string `json:"script_types,omitempty"`
	Secret      string   `json:"secret,omitempty"`
	CreatedAt   int64    `json:"created_at,omitempty"`
	UpdatedAt   int64    `json:"updated_at,omitempty"`
}

// SeedActorIn is an Actor given to actor.create: pubkey is a peer ID or a
// hex ed25519 public key.
type SeedActorIn struct {
	ID        uint64   `json:"id,omitempty"`
	Pubkey    string   `json:"pubkey"`
	Address   []string `json:"address,omitempty"`
	CreatedAt int64    `json:"created_at,omitempty"`
	UpdatedAt int64    `json:"updated_at,omitempty"`
}

// SeedContextIn is a Context given to context.create.
type SeedContextIn struct {
	ID        uint64   `json:"id,omitempty"`
	Name      string   `json:"name,omitempty"`
	Admins    []uint64 `json:"admins,omitempty"`
	Readers   []uint64 `json:"readers,omitempty"`
	Executors []uint64 `json:"executors,omitempty"`
	CreatedAt int64    `json:"created_at,omitempty"`
	UpdatedAt int64    `json:"updated_at,omitempty"`
}

func i64(v int64) string { return strconv.FormatInt(v, 10) }

func jsonOf(v any) string {
	b, _ := json.Marshal(v) // plain data
	return string(b)
}
