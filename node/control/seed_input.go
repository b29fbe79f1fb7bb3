package control

import (
	"cmp"
	"encoding/json"
	"errors"
	"strconv"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/node/api"
	"github.com/hyphae-run/hyphae/node/api/wire"
)

// The seed models as the API takes them in `<object>.create` (docs/design.md
// §8): every field a Seed* answer carries is accepted, so an object read
// back can be sent again; ids left out (0) are allocated.

// seedJobModel turns in into a RunnerJob of context ctxID and caller (the
// defaults for fields left out); field names errors as at (e.g. "job").
// It goes through the job's hash form, so the model decodes it exactly as
// it decodes a hash a client wrote.
func seedJobModel(in *wire.SeedJobIn, at string, ctxID, caller uint64) (*model.RunnerJob, error) {
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

func i64(v int64) string { return strconv.FormatInt(v, 10) }

func jsonOf(v any) string {
	b, _ := json.Marshal(v) // plain data
	return string(b)
}
