package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/node/api/wire"
)

// jobListFlags are job list's filters and how much to show.
type jobListFlags struct {
	status, name, typ string
	flow              uint64
	limit             int
	asJSON            bool
}

func newJobList(g *globals) *cobra.Command {
	f := &jobListFlags{}
	var ctxFlag uint64
	cmd := &cobra.Command{
		Use:   "list [CONTEXT]",
		Short: "List a context's jobs, newest first",
		Long: `List a context's jobs, newest first: the newest 50 unless --limit says
otherwise (0: all). The filters are the dashboard's, and combine: --status
(one status), --flow (the jobs of one flow), --name (a name or key holding
this text), --type (one script type). RUNNER is the agent a job went to
(shortened; --json has it whole), "-" for one run here. ATTEMPT is the
attempt and how many the job may have; DURATION runs from the job's
creation to its end (to now while it has not ended).`,
		Example: `  hyphae job list -c 1
  hyphae job list -c 1 --status error --limit 0
  hyphae job list -c 1 --flow 3                 # the jobs of flow 3
  hyphae job list -c 1 --name backup --type python
  hyphae job list 1                             # the older form, context first`,
		Args: ctxArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, _, err := contextArgs(cmd, ctxFlag, args, 0)
			if err != nil {
				return err
			}
			return jobList(cmd, g, id, f)
		},
	}
	fl := cmd.Flags()
	fl.BoolVar(&f.asJSON, "json", false, "print JSON")
	fl.StringVar(&f.status, "status", "", "only jobs in this status: dispatched, waiting_for_prerequisites, started, error, finished; e.g. --status error")
	fl.Uint64Var(&f.flow, "flow", 0, "only the jobs of this flow, by id (hyphae flow list shows them), e.g. --flow 3")
	fl.StringVar(&f.name, "name", "", "only jobs whose name or key holds this text, e.g. --name backup")
	fl.StringVar(&f.typ, "type", "", "only jobs of this script type, e.g. --type python")
	fl.IntVar(&f.limit, "limit", 50, "at most this many jobs, newest first (0: all)")
	addContextFlag(cmd, &ctxFlag, contextUse)
	return cmd
}

func jobList(cmd *cobra.Command, g *globals, id uint64, f *jobListFlags) error {
	if f.limit < 0 {
		return usage("--limit must be 0 (all) or more")
	}
	if f.status != "" && !model.JobStatus(f.status).Valid() {
		return usage("--status %q is not a job status: dispatched, waiting_for_prerequisites, started, error or finished", f.status)
	}
	js, more, err := f.fetch(cmd.Context(), g, id)
	if err != nil {
		return err
	}
	if len(js) == 0 {
		if err := g.requireContext(cmd.Context(), id); err != nil {
			return err
		}
	}
	if more {
		defer fmt.Fprintf(cmd.ErrOrStderr(), "showing the newest %d; --limit 0 shows all\n", f.limit)
	}
	if f.asJSON {
		return printJSON(cmd.OutOrStdout(), js)
	}
	if len(js) == 0 {
		fmt.Fprintf(cmd.ErrOrStderr(), "no jobs in context %d%s\n", id, f.with())
		return nil
	}
	printJobTable(cmd.OutOrStdout(), js)
	return nil
}

// fetch reads the jobs to show, at most limit (0: all), and whether
// there are more: with job.list when only --status filters (what it
// takes), else with job.page, which filters on the agent, a page at a
// time.
func (f *jobListFlags) fetch(ctx context.Context, g *globals, id uint64) ([]wire.JobView, bool, error) {
	if f.flow == 0 && f.name == "" && f.typ == "" {
		var js []wire.JobView
		p := map[string]any{"context": id, "status": f.status, "limit": f.limit + min(f.limit, 1)} // one more: are there more?
		if err := g.call(ctx, "job.list", p, &js); err != nil {
			return nil, false, err
		}
		if f.limit > 0 && len(js) > f.limit {
			return js[:f.limit], true, nil
		}
		return js, false, nil
	}
	js := []wire.JobView{}
	for offset := 0; ; {
		p := wire.JobPageParams{Context: id, Status: f.status, Type: f.typ, Flow: f.flow, Name: f.name,
			Offset: offset, Limit: wire.MaxJobPage}
		var page wire.JobPage
		if err := g.call(ctx, "job.page", p, &page); err != nil {
			return nil, false, err
		}
		for _, j := range page.Jobs {
			js = append(js, *j)
		}
		offset += len(page.Jobs)
		if f.limit > 0 && len(js) >= f.limit {
			return js[:f.limit], page.Total > f.limit, nil
		}
		if len(page.Jobs) == 0 || offset >= page.Total {
			return js, false, nil
		}
	}
}

// with says which filters an empty list had: " with status error, flow 3".
func (f *jobListFlags) with() string {
	var w []string
	if f.status != "" {
		w = append(w, "status "+f.status)
	}
	if f.flow != 0 {
		w = append(w, fmt.Sprintf("flow %d", f.flow))
	}
	if f.name != "" {
		w = append(w, fmt.Sprintf("name or key holding %q", f.name))
	}
	if f.typ != "" {
		w = append(w, "type "+f.typ)
	}
	if len(w) == 0 {
		return ""
	}
	return " with " + strings.Join(w, ", ")
}
