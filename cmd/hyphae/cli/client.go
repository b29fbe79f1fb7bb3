package cli

import (
	"context"
	"encoding/json"
	"errors"
	"io"

	"github.com/hyphae-run/hyphae/node/api"
)

// call invokes method on the agent (the socket of g.dataDir, or --addr),
// turning "no agent", "permission denied" and "unauthorized" into advice.
func (g *globals) call(ctx context.Context, method string, params, out any) error {
	c, err := g.dial()
	if err != nil {
		return err
	}
	err = c.Call(ctx, method, params, out)
	if nf := g.notFound(ctx, method, params, err); nf != nil { // notfound.go
		return nf
	}
	return g.explain(err)
}

// explain maps a client error to an exit code and a message that says
// what to do.
func (g *globals) explain(err error) error {
	var rpcErr *api.Error
	switch {
	case err == nil:
		return nil
	case errors.Is(err, api.ErrNoAgent):
		return &exitError{ExitNoAgent, errors.New(g.noAgentAdvice())}
	case errors.Is(err, api.ErrSocketDenied):
		return &exitError{ExitFailed, errors.New(socketDeniedAdvice(g.socket()))}
	case errors.Is(err, api.ErrUnauthorized):
		return &exitError{ExitFailed, errors.New(g.unauthorizedAdvice())}
	case errors.As(err, &rpcErr):
		code := ExitFailed
		if rpcErr.Code == api.CodeInvalidParams { // the agent found an argument bad
			code = ExitUsage
		}
		return &exitError{code, errors.New(rpcErr.Message)}
	}
	return err
}

// client is the agent's client for commands that handle errors
// themselves; on a bad --addr it is the socket's (and fails as such).
func (g *globals) client() *api.Client {
	c, err := g.dial()
	if err != nil {
		return api.NewUnixClient(g.socket())
	}
	return c
}

// printJSON writes v indented.
func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
