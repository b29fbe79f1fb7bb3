package control

import (
	"cmp"
	"context"
	"net"
	"slices"
	"time"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/store"
	"github.com/hyphae-run/hyphae/node/api"
	"github.com/hyphae-run/hyphae/node/api/wire"
)

// The methods the web dashboard (node/ui) adds: its login tokens, a
// context's numbers for the overview, and the dead letters. Every other
// call the dashboard makes is one of the methods the CLI uses.

// LoginTokens mints the dashboard's one-time login tokens (node/ui keeps
// them).
type LoginTokens interface {
	LoginToken() (token string, expires time.Time)
}

// RegisterUI adds the dashboard's methods to the table Register filled;
// tokens mints its login tokens.
func (h *Handlers) RegisterUI(tokens LoginTokens) {
	briefs := h.Briefs
	h.registerJobPageMethods(briefs)
	api.Register(h.table, "ui.login_token", "A one-time login token for the web dashboard (valid a few minutes) and the URL that uses it.",
		func(context.Context, struct{}) (*wire.LoginView, error) {
			tok, exp := tokens.LoginToken()
			v := &wire.LoginView{Token: tok, ExpiresAt: exp.Unix()}
			if addr := h.APIAddr(); addr != "" {
				v.URL = "http://" + browsable(addr) + "/#login=" + tok
			} else {
				v.Note = "the TCP API is off (api.listen: off): the dashboard is only on the socket"
			}
			return v, nil
		})
	api.Register(h.table, "ui.stats", "A context at a glance: jobs by status, queue depths, jobs created and ended per minute "+
		"over the last hour, the newest failures.", func(ctx context.Context, p wire.StatsParams) (*wire.ContextStats, error) {
		return h.uiStats(ctx, p, briefs)
	})
	api.Register(h.table, "deadletter.list", "A context's dead letters, newest first: entries that could not be processed, "+
		"with the reason (limit: default 100).", h.deadLetters)
	h.registerDeadLetterDelete()
}

// browsable turns a listen address into one a browser can open: an
// unspecified host (0.0.0.0, ::) becomes the loopback.
func browsable(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return addr
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		host = "127.0.0.1"
	}
	return net.JoinHostPort(host, port)
}

func (h *Handlers) uiStats(ctx context.Context, p wire.StatsParams, cache *store.BriefCache) (*wire.ContextStats, error) {
	if err := h.checkFlowContext(ctx, p.Context); err != nil {
		return nil, err
	}
	briefs, err := cache.Get(ctx, p.Context)
	if err != nil {
		return nil, err
	}
	queues, err := h.Store.Queues.QueueDepths(ctx, p.Context)
	if err != nil {
		return nil, err
	}
	st := &wire.ContextStats{Context: p.Context, Jobs: len(briefs), Counts: map[string]int{}, Queues: queues,
		Failures: []wire.FailureView{}}
	st.Rates = rates(briefs, time.Now())
	var failed []store.JobBrief
	for _, b := range briefs {
		st.Counts[string(b.Status)]++
		if b.Status == model.JobError {
			failed = append(failed, b)
		}
	}
	slices.SortFunc(failed, func(a, b store.JobBrief) int { return cmp.Compare(b.UpdatedAt, a.UpdatedAt) })
	for _, b := range failed[:min(len(failed), wire.MaxFailures)] {
		st.Failures = append(st.Failures, wire.FailureView{Key: b.Key, Name: b.Name, Type: b.ScriptType,
			FlowID: b.FlowID, Error: b.Error, UpdatedAt: b.UpdatedAt})
	}
	return st, nil
}

// rates buckets briefs by minute over the hour before now.
func rates(briefs []store.JobBrief, now time.Time) []wire.RateBucket {
	end := now.Truncate(time.Minute).Unix() + 60
	start := end - 3600
	out := make([]wire.RateBucket, 60)
	for i := range out {
		out[i].At = start + int64(i)*60
	}
	at := func(t int64) *wire.RateBucket {
		if t < start || t >= end {
			return nil
		}
		return &out[(t-start)/60]
	}
	for _, b := range briefs {
		if r := at(b.CreatedAt); r != nil {
			r.Created++
		}
		if r := at(b.UpdatedAt); r != nil && b.Status == model.JobFinished {
			r.Finished++
		} else if r != nil && b.Status == model.JobError {
			r.Failed++
		}
	}
	return out
}

func (h *Handlers) deadLetters(ctx context.Context, p struct {
	Context uint64 `json:"context"`
	Limit   int64  `json:"limit,omitempty"`
}) ([]wire.DeadLetter, error) {
	if p.Limit < 0 || p.Limit > store.DeadLetterCap {
		return nil, api.InvalidParams("limit", "from 1 to %d, or 0 for 100", store.DeadLetterCap)
	}
	if p.Limit == 0 {
		p.Limit = 100
	}
	if err := h.checkFlowContext(ctx, p.Context); err != nil {
		return nil, err
	}
	ds, err := h.Store.Queues.DeadLetters(ctx, p.Context, p.Limit)
	return deadLetterViews(ds), err
}
