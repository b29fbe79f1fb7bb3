package retention

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/hyphae-run/hyphae/context/store"
)

// Options say what one Prune covers.
type Options struct {
	Context   uint64         // 0: every context of the agent
	OlderThan *time.Duration // the age past which ended objects go; nil: Config.MaxAge
	DryRun    bool           // remove nothing; report what would go
}

// Report is what a Prune removed (or, dry, would remove), per context.
type Report struct {
	DryRun   bool            `json:"dry_run"`
	Contexts []ContextReport `json:"contexts"`
}

// ContextReport is what a Prune removed from one context.
type ContextReport struct {
	Context    uint64 `json:"context,omitempty"` // 0 in a Total
	Jobs       int    `json:"jobs"`              // jobs removed, a flow's included
	Flows      int    `json:"flows"`             // flows removed
	Messages   int    `json:"messages"`          // messages removed
	MsgIn      int64  `json:"msg_in"`            // entries trimmed from msg_in
	Dirs       int    `json:"dirs"`              // job attempt directories removed
	RedisBytes int64  `json:"redis_bytes"`       // memory the removed keys held (sampled)
	DiskBytes  int64  `json:"disk_bytes"`        // bytes of the removed directories' files
	Error      string `json:"error,omitempty"`
}

func (c ContextReport) empty() bool {
	return c.Jobs == 0 && c.Flows == 0 && c.Messages == 0 && c.MsgIn == 0 && c.Dirs == 0
}

// Total sums the contexts' reports (Context 0).
func (r *Report) Total() ContextReport {
	var t ContextReport
	for _, c := range r.Contexts {
		t.Jobs += c.Jobs
		t.Flows += c.Flows
		t.Messages += c.Messages
		t.MsgIn += c.MsgIn
		t.Dirs += c.Dirs
		t.RedisBytes += c.RedisBytes
		t.DiskBytes += c.DiskBytes
	}
	return t
}

// Prune applies the retention rules now to o.Context (or every context),
// with o.OlderThan in place of MaxAge when given. A context that fails is
// reported with its error and the others are still swept; the error
// returned is the first such failure.
func (j *Janitor) Prune(ctx context.Context, o Options) (*Report, error) {
	select {
	case <-j.turn:
		defer func() { j.turn <- struct{}{} }()
	case <-ctx.Done():
		return nil, fmt.Errorf("retention.Prune: %w", ctx.Err())
	}
	ids, err := j.contexts(ctx, o.Context)
	if err != nil {
		return nil, err
	}
	age := j.cfg.MaxAge
	if o.OlderThan != nil {
		age = *o.OlderThan
	}
	rules := rules{cutoff: time.Now().Add(-age).Unix(), orphanGrace: min(age, orphanGrace), dry: o.DryRun}
	rep := &Report{DryRun: o.DryRun, Contexts: []ContextReport{}}
	var first error
	for _, id := range ids {
		c, err := j.sweep(ctx, id, rules)
		if err != nil {
			c.Error = err.Error()
			if first == nil {
				first = err
			}
		}
		rep.Contexts = append(rep.Contexts, c)
	}
	return rep, first
}

// contexts is the contexts a Prune covers: want alone (if the agent has
// it), or all of the agent's.
func (j *Janitor) contexts(ctx context.Context, want uint64) ([]uint64, error) {
	ids, err := j.cfg.Contexts(ctx)
	if err != nil {
		return nil, fmt.Errorf("retention.Prune: contexts: %w", err)
	}
	if want == 0 {
		return ids, nil
	}
	if !slices.Contains(ids, want) {
		return nil, fmt.Errorf("retention.Prune: context %d: %w on this agent", want, store.ErrNotFound)
	}
	return []uint64{want}, nil
}
