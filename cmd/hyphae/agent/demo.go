package agent

import (
	"context"
	"io"
	"log/slog"
	"time"

	"github.com/hyphae-run/hyphae/node/demo"
)

// Demo runs `hyphae demo`: three agents in this process and a flow
// across them, reported to out. Agent logs go to log.
func (Agent) Demo(ctx context.Context, out io.Writer, log *slog.Logger, dir string, keep bool, timeout time.Duration) error {
	routeRedisLog(log)
	return demo.Run(ctx, demo.Options{Dir: dir, Keep: keep, Out: out, Timeout: timeout, Log: log})
}
