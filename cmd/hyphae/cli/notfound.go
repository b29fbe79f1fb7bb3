package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/hyphae-run/hyphae/node/api"
)

// notFoundParams are the fields of a method's params that name what it
// looks for.
type notFoundParams struct {
	Context uint64          `json:"context"`
	ID      json.RawMessage `json:"id"`
	Key     string          `json:"key"`
}

// notFound turns the agent's "not found", a chain of the calls that failed
// (wire.FlowState: store.LoadFlowGraph: store.LoadFlow: flow:999: not
// found), into what the user asked for: "flow 999 not found in context
// 1", or "context 99 not found" when the context itself is missing. It is
// nil when err is no such error, or names something the call did not ask
// for (the raw message then stays).
func (g *globals) notFound(ctx context.Context, method string, params any, err error) error {
	var rpcErr *api.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != api.CodeNotFound {
		return nil
	}
	var p notFoundParams
	if b, jerr := json.Marshal(params); jerr != nil || json.Unmarshal(b, &p) != nil {
		return nil
	}
	id := strings.Trim(string(p.ID), `"`)
	noun, _, _ := strings.Cut(method, ".")
	if noun == "context" {
		return contextNotFound(id)
	}
	if p.Context != 0 && g.contextMissing(ctx, p.Context) {
		return contextNotFound(fmt.Sprint(p.Context))
	}
	var what string
	switch {
	case noun == "job" && p.Key != "" && strings.Contains(rpcErr.Message, p.Key):
		what = p.Key
	case noun == "flow" && id != "" && (strings.Contains(rpcErr.Message, "flow:"+id) ||
		strings.HasPrefix(rpcErr.Message, "flow "+id+" not found")): // the agent's own words (node/control/notfound.go)
		what = "flow " + id
	case noun == "runner" && id != "" && strings.Contains(rpcErr.Message, "runner:"+id):
		what = "runner:" + id
	default:
		return nil
	}
	return failed("%s not found in context %d (hyphae %s list -c %d lists them)", what, p.Context, noun, p.Context)
}

func contextNotFound(id string) error {
	return failed("context %s not found on this agent (hyphae context list lists them)", id)
}

// contextMissing says whether the agent answers "not found" for context
// id; any other answer (found, denied, no agent) is not taken as missing.
func (g *globals) contextMissing(ctx context.Context, id uint64) bool {
	c, err := g.dial()
	if err != nil {
		return false
	}
	var out json.RawMessage
	var rpcErr *api.Error
	err = c.Call(ctx, "context.load", map[string]any{"id": id}, &out)
	return errors.As(err, &rpcErr) && rpcErr.Code == api.CodeNotFound
}

// requireContext is an error when context id does not exist: an empty
// list from a missing context would read as "nothing there yet".
func (g *globals) requireContext(ctx context.Context, id uint64) error {
	if g.contextMissing(ctx, id) {
		return contextNotFound(fmt.Sprint(id))
	}
	return nil
}
