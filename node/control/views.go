package control

import (
	"strconv"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/store"
	"github.com/hyphae-run/hyphae/node/api/wire"
)

func jobView(j *model.RunnerJob) *wire.JobView {
	r := j.Result
	if r == nil {
		r = map[string]string{}
	}
	v := &wire.JobView{Key: store.JobKey(j.CallerID, j.ID), ID: j.ID, CallerID: j.CallerID, ContextID: j.ContextID,
		Name: j.Name, FlowID: j.FlowID, Type: j.ScriptType, Script: j.Script, Status: string(j.Status),
		State: string(j.Status), LateResult: j.LateResult(),
		Result: r, Error: j.Error, Attempt: j.Attempt, Retries: j.Retries, Timeout: j.Timeout,
		Runner: j.Runner, EnvVars: j.EnvVars, CreatedAt: j.CreatedAt, UpdatedAt: j.UpdatedAt,
		TraceID: j.TraceID()}
	if at, ok := store.ParseRunAt(j.Extra[store.RunAtField]); ok {
		v.RunAt = float64(at.UnixMilli()) / 1000
	}
	if j.Cancelled() { // the word its flow shows (model.StateCancelled)
		v.State = model.StateCancelled
	}
	if since, away := j.Unreachable(); away {
		v.State, v.UnreachableSince = model.StateUnknown, since.Unix()
	}
	v.IdempotencyKey, v.DuplicateOf = j.IdempotencyKey(), j.DuplicateOf()
	v.KeyedParams = keyedOf(j)
	filesView(j, v) // methods_files.go
	return v
}

func contextView(c *model.Context) *wire.ContextView {
	return &wire.ContextView{ID: c.ID, Name: c.Name, Admins: nz(c.Admins), Readers: nz(c.Readers),
		Executors: nz(c.Executors), Isolation: c.Isolation(), Network: c.Network(),
		CreatedAt: c.CreatedAt, UpdatedAt: c.UpdatedAt}
}

func nz(v []uint64) []uint64 {
	if v == nil {
		return []uint64{}
	}
	return v
}

func nzs(v []string) []string {
	if v == nil {
		return []string{}
	}
	return v
}

func u64(v uint64) string { return strconv.FormatUint(v, 10) }
