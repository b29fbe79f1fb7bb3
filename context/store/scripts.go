package store

import (
	"context"
	"strings"

	"github.com/redis/go-redis/v9"

	"github.com/hyphae-run/hyphae/context/model"
)

// Every Lua script of the package is made by newScript and declared beside
// the one Go method that runs it (or the few that run the same operation),
// with its KEYS and ARGV documented. Lua that several scripts share is in
// lua_lib.go, Lua generated from the model's rules in lua_rules.go.

// registered is one script of the package, as newScript made it.
type registered struct {
	name string
	src  string
	s    *redis.Script
}

// scripts lists every script of the package, filled by newScript as the
// package initialises, so a test can load each into a real Redis.
var scripts []registered

// newScript makes the script name from its parts, joined in order: the
// shared Lua functions it calls (lua_lib.go, lua_rules.go), then its body.
func newScript(name string, parts ...string) *redis.Script {
	src := luaJobKnown + strings.Join(parts, "")
	s := redis.NewScript(src)
	scripts = append(scripts, registered{name: name, src: src, s: s})
	return s
}

// builtScript makes a script built at run time, when first needed (the
// claim's variants, claim_build.go): it is in no registry, so its own
// tests load every one.
func builtScript(src string) *redis.Script { return redis.NewScript(src) }

// pairs flattens a hash into HSET arguments.
func pairs(h model.Hash) []any {
	out := make([]any, 0, 2*len(h))
	for k, v := range h {
		out = append(out, k, v)
	}
	return out
}

// orLoad returns cmd, the reply of script s queued in a pipeline with
// EvalSha (which cannot fall back to EVAL there), unless the server had
// not loaded s yet: then that call did not run, and s runs now, with Run,
// which loads it. The pipeline's other commands ran either way.
func orLoad(ctx context.Context, db *redis.Client, s *redis.Script, cmd *redis.Cmd, keys []string, args ...any) *redis.Cmd {
	if isNoScript(cmd.Err()) {
		return s.Run(ctx, db, keys, args...)
	}
	return cmd
}

func isNoScript(err error) bool { return err != nil && redis.HasErrorPrefix(err, "NOSCRIPT") }
