package control

import (
	"cmp"
	"context"
	"slices"
	"strings"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/store"
	"github.com/hyphae-run/hyphae/node/api"
)

// JobPageParams are job.page's: a context's jobs filtered and paged on
// the agent, so a client of a context with many jobs reads one page.
type JobPageParams struct {
	Context uint64 `json:"context"`
	Status  string `json:"status,omitempty"` // only jobs in this status
	Type    string `json:"type,omitempty"`   // only jobs of this script type
	Flow    uint64 `json:"flow,omitempty"`   // only the jobs of this flow
	Name    string `json:"name,omitempty"`   // only jobs whose name or key contains this
	Since   int64  `json:"since,omitempty"`  // only jobs created at or after (unix s)
	Offset  int    `json:"offset,omitempty"` // skip this many, newest first
	Limit   int    `json:"limit,omitempty"`  // page size: default 50, at most MaxJobPage
}

// JobPage answers job.page.
type JobPage struct {
	Jobs   []*JobView `json:"jobs"`
	Total  int        `json:"total"` // jobs that match the filter
	Offset int        `json:"offset"`
	Limit  int        `json:"limit"`
	// Counts are the jobs by status that match every filter but status
	// (the tabs a jobs view shows beside the list).
	Counts map[string]int `json:"counts"`
}

// MaxJobPage bounds a page of job.page; DefaultJobPage is its default.
const (
	MaxJobPage     = 500
	DefaultJobPage = 50
)

func (h *Handlers) registerJobPageMethods(briefs *briefCache) {
	api.Register(h.table, "job.page", "A page of a context's jobs, newest first, filtered on the agent by status, type, flow, "+
		"name (substring of name or key) and since (created at or after, unix s); offset and limit (default 50, at most 500) page it; "+
		"total and counts (by status) say how many match.",
		func(ctx context.Context, p JobPageParams) (*JobPage, error) { return h.jobPage(ctx, p, briefs) })
}

func (h *Handlers) jobPage(ctx context.Context, p JobPageParams, cache *briefCache) (*JobPage, error) {
	if err := h.checkJobPage(ctx, &p); err != nil {
		return nil, err
	}
	briefs, err := cache.get(ctx, p.Context)
	if err != nil {
		return nil, err
	}
	page := &JobPage{Offset: p.Offset, Limit: p.Limit, Counts: map[string]int{}, Jobs: []*JobView{}}
	var keys []string // the page's, newest first: the cache keeps briefs in that order
	for i := range briefs {
		b := &briefs[i]
		if !p.matches(b) {
			continue
		}
		page.Counts[string(b.Status)]++
		if p.Status != "" && string(b.Status) != p.Status {
			continue
		}
		if page.Total >= p.Offset && len(keys) < p.Limit {
			keys = append(keys, b.Key)
		}
		page.Total++
	}
	if len(keys) == 0 {
		return page, nil
	}
	js, err := h.Store.LoadJobKeys(ctx, p.Context, keys)
	if err != nil {
		return nil, err
	}
	for _, j := range js {
		if j != nil { // deleted since the scan
			page.Jobs = append(page.Jobs, jobView(j))
		}
	}
	return page, nil
}

// checkJobPage refuses bad parameters and fills the default limit.
func (h *Handlers) checkJobPage(ctx context.Context, p *JobPageParams) error {
	switch {
	case p.Status != "" && !model.JobStatus(p.Status).Valid():
		return api.InvalidParams("status", "%q is not a job status (dispatched, waiting_for_prerequisites, started, error, finished)", p.Status)
	case p.Offset < 0:
		return api.InvalidParams("offset", "must not be negative")
	case p.Limit < 0 || p.Limit > MaxJobPage:
		return api.InvalidParams("limit", "from 1 to %d, or 0 for %d", MaxJobPage, DefaultJobPage)
	}
	if p.Limit == 0 {
		p.Limit = DefaultJobPage
	}
	if err := h.Store.CheckContextID(p.Context); err != nil {
		return api.InvalidParams("context", "%v", err)
	}
	if _, err := h.Store.LoadContext(ctx, p.Context); err != nil {
		return h.contextErr(err, p.Context)
	}
	return nil
}

// matches applies every filter but status.
func (p *JobPageParams) matches(b *store.JobBrief) bool {
	return (p.Type == "" || b.ScriptType == p.Type) && (p.Flow == 0 || b.FlowID == p.Flow) &&
		(p.Since == 0 || b.CreatedAt >= p.Since) &&
		(p.Name == "" || strings.Contains(b.Name, p.Name) || strings.Contains(b.Key, p.Name))
}

// sortBriefs orders newest first, as job.list does.
func sortBriefs(bs []store.JobBrief) { slices.SortFunc(bs, compareBriefs) }

// compareBriefs orders newest first: by created_at, then id, then caller.
func compareBriefs(a, b store.JobBrief) int {
	return cmp.Or(cmp.Compare(b.CreatedAt, a.CreatedAt), cmp.Compare(b.ID, a.ID), cmp.Compare(b.CallerID, a.CallerID))
}
