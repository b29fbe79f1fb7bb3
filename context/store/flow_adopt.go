package store

import (
	"context"
	"fmt"

	"github.com/hyphae-run/hyphae/context/model"
)

// A flow made the seed way — job hashes (or job.create), then a flow:<id>
// hash listing their ids — has none of the scheduler's own records. The
// control API adopts it when it is started: AdoptFlow writes what the
// scheduler reads (per job: a node name, the flow id, the upstream ids it
// reads its edges from) and the node states, all pending, in one step,
// so a flow is either adopted whole or not at all.

// AdoptFlow turns flow flowID of context ctxID, made the seed way, into
// one the scheduler runs: jobs maps each job key to the fields to set on
// it, nodes each node name to its state. The flow must exist with status
// dispatched (or none, as a hand-written hash may have: it is set to
// dispatched). It reports false, writing nothing, when the flow has node
// states already (it was made by the scheduler, or adopted before);
// ErrNotFound when the flow or a job is missing; ErrBadTransition when
// the flow's status is past dispatched.
func (s *Flows) AdoptFlow(ctx context.Context, ctxID, flowID uint64, jobs map[string]model.Hash, nodes map[string]string) (bool, error) {
	db, err := s.db(ctxID)
	if err != nil {
		return false, fmt.Errorf("store.AdoptFlow: %w", err)
	}
	keys := []string{FlowKey(flowID), FlowNodesKey(flowID)}
	args := []any{mustJSON(nodes), now()}
	for k, h := range jobs {
		keys = append(keys, k)
		args = append(args, mustJSON(h))
	}
	n, err := adoptFlow.Run(ctx, db, keys, args...).Int()
	if err != nil {
		return false, scriptErr("store.AdoptFlow", err)
	}
	return n == 1, nil
}

// adoptFlow: see AdoptFlow.
// KEYS[1] flow:<id>, KEYS[2] flow_nodes:<id>, KEYS[3..] job keys.
// ARGV[1] node states (JSON object), ARGV[2] now (unix s), ARGV[3..] the
// fields to set on each job, in KEYS order (JSON objects of strings).
// Returns 1 when adopted, 0 when the flow has node states already, or an
// error "notfound: …" / "transition: …" (nothing written).
var adoptFlow = newScript("adoptFlow", luaHsetJSON, `
if redis.call('EXISTS', KEYS[1]) == 0 then
  return redis.error_reply('notfound: ' .. KEYS[1])
end
if redis.call('EXISTS', KEYS[2]) == 1 then return 0 end
local st = redis.call('HGET', KEYS[1], 'status')
if st and st ~= '' and st ~= 'dispatched' then
  return redis.error_reply('transition: ' .. KEYS[1] .. ' is ' .. st .. '; only a created flow can start')
end
for i = 3, #KEYS do
  if redis.call('EXISTS', KEYS[i]) == 0 then
    return redis.error_reply('notfound: ' .. KEYS[i] .. ' (a job of ' .. KEYS[1] .. ')')
  end
end
for i = 3, #KEYS do hsetjson(KEYS[i], ARGV[i]) end
redis.call('HSET', KEYS[1], 'status', 'dispatched', 'updated_at', ARGV[2])
hsetjson(KEYS[2], ARGV[1])
return 1
`)
