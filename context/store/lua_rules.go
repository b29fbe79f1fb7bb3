package store

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/hyphae-run/hyphae/context/model"
)

// Lua functions generated from the model's rules, so that Go and the
// scripts cannot disagree: the job and message lifecycles and the role
// rule. Each defines local functions only; a script takes the ones it
// calls through newScript.

// luaMoves defines moves(from, to), the job lifecycle (model.JobMoves):
// true when the move is allowed, false when not, nil when from is no known
// status.
var luaMoves = luaJobFunc("moves", "to", func(st model.JobStatus) string {
	next := model.JobMoves()[st]
	if len(next) == 0 {
		return "false"
	}
	conds := make([]string, len(next))
	for i, n := range next {
		conds[i] = fmt.Sprintf("to == %q", n)
	}
	return strings.Join(conds, " or ")
})

// luaTerminal defines terminal(status): whether a job in it has ended
// (model.JobStatus.Terminal); nil for no known status.
var luaTerminal = luaJobFunc("terminal", "_", func(st model.JobStatus) string {
	return strconv.FormatBool(st.Terminal())
})

// luaStartable defines startable(status): whether a job in it may be
// started (model.JobStatus.CanMoveTo started); nil for no known status.
var luaStartable = luaJobFunc("startable", "_", func(st model.JobStatus) string {
	return strconv.FormatBool(st.CanMoveTo(model.JobStarted))
})

// luaJobFunc renders `local function name(st, arg)` over every job status
// (model.JobMoves' keys), returning value(status) for each.
func luaJobFunc(name, arg string, value func(model.JobStatus) string) string {
	moves := model.JobMoves()
	keys := make([]string, 0, len(moves))
	for k := range moves {
		keys = append(keys, string(k))
	}
	sort.Strings(keys)
	return luaChain(name, arg, keys, func(k string) string { return value(model.JobStatus(k)) })
}

// luaChain renders `local function name(st, arg) if st == … then return
// value(st) elseif … end return nil end` over cases, in their order (a
// status it does not know gives nil). A chain of comparisons, not a table:
// a table literal is built again on every script call, and the
// lifecycle's nested tables cost measurable Redis CPU per call.
func luaChain(name, arg string, cases []string, value func(string) string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "local function %s(st, %s)\n", name, arg)
	for i, k := range cases {
		kw := "elseif"
		if i == 0 {
			kw = "if"
		}
		fmt.Fprintf(&b, "  %s st == %q then return %s\n", kw, k, value(k))
	}
	b.WriteString("  end\n  return nil\nend\n")
	return b.String()
}

// msgStatuses are the message statuses, "" (none yet) first.
var msgStatuses = []model.MessageStatus{"", model.MsgDispatched, model.MsgAcknowledged, model.MsgError, model.MsgProcessed}

// luaMessageMoves defines messageMoves(from, to), the message lifecycle
// (model.MessageStatus.CanMoveTo): true when the move is allowed, false
// when not (to "" never is), nil when from is no known status.
var luaMessageMoves = func() string {
	cases := make([]string, len(msgStatuses))
	for i, st := range msgStatuses {
		cases[i] = string(st)
	}
	return luaChain("messageMoves", "to", cases, func(from string) string {
		var conds []string
		for _, to := range msgStatuses[1:] {
			if model.MessageStatus(from).CanMoveTo(to) {
				conds = append(conds, fmt.Sprintf("to == %q", to))
			}
		}
		if len(conds) == 0 {
			return "false"
		}
		return strings.Join(conds, " or ")
	})
}()

// luaHasRole defines hasRole(ctx, actor, role), the role rule
// (model.GrantedBy, as model.Context.Has applies it) in Lua: true when
// actor (a number) is on one of the lists of context hash ctx that grant
// role, false when not, nil when ctx does not exist. A list that is not a
// JSON list of ids grants nothing; ids may be numbers or decimal strings.
var luaHasRole = func() string {
	var b strings.Builder
	b.WriteString(`local function onList(list, actor)
  if not list then return false end
  local ok, ids = pcall(cjson.decode, list)
  if not ok or type(ids) ~= 'table' then return false end
  for _, x in ipairs(ids) do
    if tonumber(x) == actor then return true end
  end
  return false
end
local function hasRole(ctx, actor, role)
  local lists
`)
	for i, r := range model.Roles() {
		kw := "elseif"
		if i == 0 {
			kw = "if"
		}
		fields := make([]string, 0, 3)
		for _, g := range model.GrantedBy(r) {
			fields = append(fields, strconv.Quote(g.ListField()))
		}
		fmt.Fprintf(&b, "  %s role == %q then lists = redis.call('HMGET', ctx, %s)\n", kw, r, strings.Join(fields, ", "))
	}
	b.WriteString(`  else return false end
  for i = 1, #lists do
    if onList(lists[i], actor) then return true end
  end
  if redis.call('EXISTS', ctx) == 0 then return nil end
  return false
end
`)
	return b.String()
}()
