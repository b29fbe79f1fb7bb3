package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/hyphae-run/hyphae/node"
	"github.com/hyphae-run/hyphae/node/api"
)

// call invokes method on the agent of g.dataDir, turning "no agent" into
// advice.
func (g *globals) call(ctx context.Context, method string, params, out any) error {
	c := api.NewUnixClient(node.PathsFor(g.dataDir).Socket)
	err := c.Call(ctx, method, params, out)
	if errors.Is(err, api.ErrNoAgent) {
		return &exitError{ExitNoAgent, fmt.Errorf("no agent is running on data dir %s; start one with `hyphae run --data-dir %s` (or `hyphae init` first)", g.dataDir, g.dataDir)}
	}
	var rpcErr *api.Error
	if errors.As(err, &rpcErr) {
		code := ExitFailed
		if rpcErr.Code == api.CodeInvalidParams { // the agent found an argument bad
			code = ExitUsage
		}
		return &exitError{code, errors.New(rpcErr.Message)}
	}
	return err
}

func (g *globals) client() *api.Client {
	return api.NewUnixClient(node.PathsFor(g.dataDir).Socket)
}

// printJSON writes v indented.
func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
