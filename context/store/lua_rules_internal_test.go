package store

import (
	"context"
	"fmt"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/testkit/testredis"
)

// luaAnswer runs Lua code that defines fn, calling fn(args...) and
// answering "true", "false" or "nil".
func luaAnswer(t *testing.T, db *redis.Client, code, call string, keys []string, args ...any) string {
	t.Helper()
	src := code + "local r = " + call + "\nif r == nil then return 'nil' end\nreturn tostring(r)\n"
	got, err := db.Eval(context.Background(), src, keys, args...).Text()
	if err != nil {
		t.Fatalf("%s: %v", call, err)
	}
	return got
}

// The Lua role check answers as model.Context.Has for every role and
// every combination of lists the actor is on, ids written as numbers or as
// strings; nil when the context does not exist.
func TestLuaRoleCheckIsTheGoRule(t *testing.T) {
	db := redis.NewClient(&redis.Options{Addr: testredis.Start(t).Addr})
	defer db.Close()
	ctx := context.Background()
	const actor, other = 7, 8
	roles := append(model.Roles(), "owner")
	for mask := range 8 {
		c := &model.Context{ID: 1}
		for i, r := range model.Roles() {
			c.Grant(other, r)
			if mask&(1<<i) != 0 {
				c.Grant(actor, r)
			}
		}
		h := c.ToHash()
		if mask == 5 { // another client's way: ids as JSON strings
			h[model.RoleReader.ListField()] = fmt.Sprintf(`["%d","%d"]`, other, actor)
		}
		if err := db.Del(ctx, "c").Err(); err != nil {
			t.Fatal(err)
		}
		if err := db.HSet(ctx, "c", pairs(h)...).Err(); err != nil {
			t.Fatal(err)
		}
		for _, r := range roles {
			got := luaAnswer(t, db, luaHasRole, "hasRole(KEYS[1], tonumber(ARGV[1]), ARGV[2])", []string{"c"}, actor, string(r))
			if want := fmt.Sprint(c.Has(actor, r)); got != want {
				t.Errorf("lists %03b, role %s: Lua says %s, Context.Has %s", mask, r, got, want)
			}
		}
	}
	if got := luaAnswer(t, db, luaHasRole, "hasRole(KEYS[1], 7, 'reader')", []string{"nothing"}); got != "nil" {
		t.Errorf("context that does not exist: Lua says %s, want nil", got)
	}
}

// The generated lifecycle functions answer as the model for every pair of
// statuses, and nil for a status the model does not know.
func TestLuaLifecyclesAreTheGoRules(t *testing.T) {
	db := redis.NewClient(&redis.Options{Addr: testredis.Start(t).Addr})
	defer db.Close()
	jobs := []model.JobStatus{"bogus"}
	for st := range model.JobMoves() {
		jobs = append(jobs, st)
	}
	for _, from := range jobs {
		known := from == "" || from.Valid()
		ask := func(code, call string, want bool) {
			t.Helper()
			w := fmt.Sprint(want)
			if !known {
				w = "nil"
			}
			if got := luaAnswer(t, db, code, call, nil, string(from)); got != w {
				t.Errorf("%s with %q: Lua says %s, the model %s", call, from, got, w)
			}
		}
		ask(luaTerminal, "terminal(ARGV[1])", from.Terminal())
		ask(luaStartable, "startable(ARGV[1])", from.CanMoveTo(model.JobStarted))
		for _, to := range jobs {
			ask(luaMoves, fmt.Sprintf("moves(ARGV[1], %q)", to), from.CanMoveTo(to))
		}
	}
	msgs := append([]model.MessageStatus{"bogus"}, msgStatuses...)
	for _, from := range msgs {
		for _, to := range msgs {
			want := fmt.Sprint(from.CanMoveTo(to) && to != "")
			if from == "bogus" {
				want = "nil"
			}
			got := luaAnswer(t, db, luaMessageMoves, "messageMoves(ARGV[1], ARGV[2])", nil, string(from), string(to))
			if got != want {
				t.Errorf("messageMoves(%q, %q): Lua says %s, the model %s", from, to, got, want)
			}
		}
	}
}
