package store

import (
	"context"
	"fmt"
)

// deleteDeadLetters removes every entry of the dead_letter list whose
// JSON names the key ARGV[1]; entries that are not JSON stay. One script,
// so an entry pushed meanwhile is neither lost nor half-removed.
var deleteDeadLetters = newScript("deleteDeadLetters", `
local n = 0
for _, raw in ipairs(redis.call('LRANGE', KEYS[1], 0, -1)) do
  local ok, d = pcall(cjson.decode, raw)
  if ok and type(d) == 'table' and d.key == ARGV[1] then
    n = n + redis.call('LREM', KEYS[1], 0, raw)
  end
end
return n
`)

// DeleteDeadLetter removes a context's dead letters for key and says how
// many there were (0 when none: deleting twice is not an error).
func (s *Queues) DeleteDeadLetter(ctx context.Context, ctxID uint64, key string) (int64, error) {
	db, err := s.db(ctxID)
	if err != nil {
		return 0, fmt.Errorf("store.DeleteDeadLetter: %w", err)
	}
	n, err := deleteDeadLetters.Run(ctx, db, []string{DeadLetterKey}, key).Int64()
	if err != nil {
		return 0, fmt.Errorf("store.DeleteDeadLetter: %w", err)
	}
	return n, nil
}
