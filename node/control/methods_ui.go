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
)

// The methods the web dashboard (node/ui) adds: its login tokens, a
// context's numbers for the overview, and the dead letters. Every other
// call the dashboard makes is one of the methods the CLI uses.

// LoginTokens mints the dashboard's one-time login tokens (node/ui keeps
// them).
type LoginTokens interface {
	LoginToken() (token string, expires time.Time)
}

// LoginView answers ui.login_token.
type LoginView struct {
	Token     string `json:"token"`
	ExpiresAt int64  `json:"expires_at"`    // unix s; the token works once, until then
	URL       string `json:"url,omitempty"` // the dashboard on the TCP API, logging in with the token
	Note      string `json:"note,omitempty"`
}

// ContextStats answers ui.stats: one context at a glance.
type ContextStats struct {
	Context  uint64           `json:"context"`
	Jobs     int              `json:"jobs"`
	Counts   map[string]int   `json:"counts"`   // jobs by status
	Queues   map[string]int64 `json:"queues"`   // jobs waiting, by script type
	Rates    []RateBucket     `json:"rates"`    // the last hour by minute, oldest first
	Failures []FailureView    `json:"failures"` // the newest failed jobs, at most MaxFailures
}

// RateBucket counts the jobs of one minute: created, and ended (by when
// they last changed) finished or failed.
type RateBucket struct {
	At       int64 `json:"at"` // the minute's start, unix s
	Created  int   `json:"created"`
	Finished int   `json:"finished"`
	Failed   int   `json:"failed"`
}

// FailureView is a failed job in ui.stats.
type FailureView struct {
	Key       string `json:"key"`
	Name      string `json:"name,omitempty"`
	Type      string `json:"script_type"`
	FlowID    uint64 `json:"flow_id,omitempty"`
	Error     string `json:"error"`
	UpdatedAt int64  `json:"updated_at"`
}

// MaxFailures bounds ui.stats's failures.
const MaxFailures = 10

// RegisterUI adds the dashboard's methods to the table Register filled;
// tokens mints its login tokens.
func (h *Handlers) RegisterUI(tokens LoginTokens) {
	briefs := newBriefCache(h.Store)
	h.registerJobPageMethods(briefs)
	api.Register(h.table, "ui.login_token", "A one-time login token for the web dashboard (valid a few minutes) and the URL that uses it.",
		func(context.Context, struct{}) (*LoginView, error) {
			tok, exp := tokens.LoginToken()
			v := &LoginView{Token: tok, ExpiresAt: exp.Unix()}
			if addr := h.APIAddr(); addr != "" {
				v.URL = "http://" + browsable(addr) + "/#login=" + tok
			} else {
				v.Note = "the TCP API is off (api.listen: off): the dashboard is only on the socket"
			}
			return v, nil
		})
	api.Register(h.table, "ui.stats", "A context at a glance: jobs by status, queue depths, jobs created and ended per minute "+
		"over the last hour, the newest failures.", func(ctx context.Context, p StatsParams) (*ContextStats, error) {
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

// StatsParams are ui.stats's.
type StatsParams struct {
	Context uint64 `json:"context"`
}

func (h *Handlers) uiStats(ctx context.Context, p StatsParams, cache *briefCache) (*ContextStats, error) {
	if err := h.checkFlowContext(ctx, p.Context); err != nil {
		return nil, err
	}
	briefs, err := cache.get(ctx, p.Context)
	if err != nil {
		return nil, err
	}
	queues, err := h.Store.QueueDepths(ctx, p.Context)
	if err != nil {
		return nil, err
	}
	st := &ContextStats{Context: p.Context, Jobs: len(briefs), Counts: map[string]int{}, Queues: queues,
		Failures: []FailureView{}}
	st.Rates = rates(briefs, time.Now())
	var failed []store.JobBrief
	for _, b := range briefs {
		st.Counts[string(b.Status)]++
		if b.Status == model.JobError {
			failed = append(failed, b)
		}
	}
	slices.SortFunc(failed, func(a, b store.JobBrief) int { return cmp.Compare(b.UpdatedAt, a.UpdatedAt) })
	for _, b := range failed[:min(len(failed), MaxFailures)] {
		st.Failures = append(st.Failures, FailureView{Key: b.Key, Name: b.Name, Type: b.ScriptType,
			FlowID: b.FlowID, Error: b.Error, UpdatedAt: b.UpdatedAt})
	}
	return st, nil
}

// rates buckets briefs by minute over the hour before now.
func rates(briefs []store.JobBrief, now time.Time) []RateBucket {
	end := now.Truncate(time.Minute).Unix() + 60
	start := end - 3600
	out := make([]RateBucket, 60)
	for i := range out {
		out[i].At = start + int64(i)*60
	}
	at := func(t int64) *RateBucket {
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
}) ([]store.DeadLetter, error) {
	if p.Limit < 0 || p.Limit > store.DeadLetterCap {
		return nil, api.InvalidParams("limit", "from 1 to %d, or 0 for 100", store.DeadLetterCap)
	}
	if p.Limit == 0 {
		p.Limit = 100
	}
	if err := h.checkFlowContext(ctx, p.Context); err != nil {
		return nil, err
	}
	return h.Store.DeadLetters(ctx, p.Context, p.Limit)
}
