package agent

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/redis/go-redis/v9"
)

// redisLog carries go-redis' own messages (reconnects, pool trouble) into
// the agent's log as warnings, in its format and at its level, instead of
// plain lines on stderr. go-redis has one logger per process.
type redisLog struct{ log *slog.Logger }

func (l redisLog) Printf(ctx context.Context, format string, v ...any) {
	l.log.WarnContext(ctx, fmt.Sprintf(format, v...), "from", "go-redis")
}

// routeRedisLog makes log go-redis' logger for this process.
func routeRedisLog(log *slog.Logger) { redis.SetLogger(redisLog{log}) }
