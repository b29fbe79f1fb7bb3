package control

import (
	"context"
	"strings"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/store"
	"github.com/hyphae-run/hyphae/node/api"
	"github.com/hyphae-run/hyphae/node/api/wire"
)

func (h *Handlers) registerJobPageMethods(briefs *store.BriefCache) {
	api.Register(h.table, "job.page", "A page of a context's jobs, newest first, filtered on the agent by status, type, flow, "+
		"name (substring of name or key) and since (created at or after, unix s); offset and limit (default 50, at most 500) page it; "+
		"total and counts (by status) say how many match.",
		func(ctx context.Context, p wire.JobPageParams) (*wire.JobPage, error) {
			return h.jobPage(ctx, p, briefs)
		})
}

func (h *Handlers) jobPage(ctx context.Context, p wire.JobPageParams, cache *store.BriefCache) (*wire.JobPage, error) {
	if err := h.checkJobPage(ctx, &p); err != nil {
		return nil, err
	}
	briefs, err := cache.Get(ctx, p.Context)
	if err != nil {
		return nil, err
	}
	page := &wire.JobPage{Offset: p.Offset, Limit: p.Limit, Counts: map[string]int{}, Jobs: []*wire.JobView{}}
	var keys []string // the page's, newest first: the cache keeps briefs in that order
	for i := range briefs {
		b := &briefs[i]
		if !pageMatches(&p, b) {
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
	js, err := h.Store.Flows.LoadJobKeys(ctx, p.Context, keys)
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
func (h *Handlers) checkJobPage(ctx context.Context, p *wire.JobPageParams) error {
	switch {
	case p.Status != "" && !model.JobStatus(p.Status).Valid():
		return api.InvalidParams("status", "%q is not a job status (dispatched, waiting_for_prerequisites, started, error, finished)", p.Status)
	case p.Offset < 0:
		return api.InvalidParams("offset", "must not be negative")
	case p.Limit < 0 || p.Limit > wire.MaxJobPage:
		return api.InvalidParams("limit", "from 1 to %d, or 0 for %d", wire.MaxJobPage, wire.DefaultJobPage)
	}
	if p.Limit == 0 {
		p.Limit = wire.DefaultJobPage
	}
	if err := h.Store.Registry.CheckContextID(p.Context); err != nil {
		return api.InvalidParams("context", "%v", err)
	}
	if _, err := h.Store.Registry.LoadContext(ctx, p.Context); err != nil {
		return h.contextErr(err, p.Context)
	}
	return nil
}

// matches applies every filter but status.
func pageMatches(p *wire.JobPageParams, b *store.JobBrief) bool {
	return (p.Type == "" || b.ScriptType == p.Type) && (p.Flow == 0 || b.FlowID == p.Flow) &&
		(p.Since == 0 || b.CreatedAt >= p.Since) &&
		(p.Name == "" || strings.Contains(b.Name, p.Name) || strings.Contains(b.Key, p.Name))
}
