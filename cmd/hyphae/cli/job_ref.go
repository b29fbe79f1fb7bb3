package cli

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/hyphae-run/hyphae/node/api/wire"
)

// jobArgHelp is the help every command naming a job carries.
const jobArgHelp = `JOB is the job's key (job:1:42), or its number alone (42) when one job of
the context has it. With no context given (-c N, $HYPHAE_CONTEXT), a number
is looked up in the agent's context when it has only one.`

// jobArgs reads the job a command names, [CONTEXT] JOB, into its context
// and key. JOB is a key (job:1:10) or the job's number alone (10), which
// names the one job of that number in the context. Given no context at
// all (no CONTEXT, -c or $HYPHAE_CONTEXT), a number is taken in the
// agent's only context; with several, it is bad usage that says how to
// choose.
func jobArgs(cmd *cobra.Command, g *globals, flag uint64, args []string) (uint64, string, error) {
	n, short := jobNumber(args[len(args)-1])
	if !short {
		id, rest, err := contextArgs(cmd, flag, args, 1)
		if err != nil {
			return 0, "", err
		}
		return id, rest[0], nil
	}
	var id uint64
	var err error
	if len(args) == 1 && !cmd.Flags().Changed("context") && os.Getenv(envContext) == "" {
		id, err = onlyContext(cmd, g, n)
	} else {
		id, _, err = contextArgs(cmd, flag, args, 1)
	}
	if err != nil {
		return 0, "", err
	}
	key, err := jobKeyOf(cmd.Context(), g, id, n)
	return id, key, err
}

// jobNumber is s as a job's number (10, not job:1:10).
func jobNumber(s string) (uint64, bool) {
	n, err := strconv.ParseUint(s, 10, 64)
	return n, err == nil && n > 0
}

// onlyContext is the agent's context when it has one; with none or
// several, an error naming them and how to pick one for job n.
func onlyContext(cmd *cobra.Command, g *globals, n uint64) (uint64, error) {
	var cs []wire.ContextView
	if err := g.call(cmd.Context(), "context.list", nil, &cs); err != nil {
		return 0, err
	}
	switch len(cs) {
	case 0:
		return 0, failed("job %d: this agent has no context (hyphae context create)", n)
	case 1:
		return cs[0].ID, nil
	}
	ids := make([]string, len(cs))
	for i := range cs {
		ids[i] = fmt.Sprint(cs[i].ID)
	}
	return 0, usage("job %d: which context? this agent has %s: give -c N (or set $%s), as in `%s -c %d %d`, or the job's full key with -c N",
		n, strings.Join(ids, ", "), envContext, cmd.CommandPath(), cs[0].ID, n)
}

// jobKeyOf finds the key of job n in context id: the one job of that
// number there (jobs sent here by other agents may share it; the key then
// says which). job.page's name filter matches keys too, so ":n" narrows
// the pages to read.
func jobKeyOf(ctx context.Context, g *globals, id, n uint64) (string, error) {
	var keys []string
	for offset := 0; ; {
		var page wire.JobPage
		p := wire.JobPageParams{Context: id, Name: fmt.Sprintf(":%d", n), Offset: offset, Limit: wire.MaxJobPage}
		if err := g.call(ctx, "job.page", p, &page); err != nil {
			return "", err
		}
		for _, j := range page.Jobs {
			if j.ID == n {
				keys = append(keys, j.Key)
			}
		}
		offset += len(page.Jobs)
		if len(page.Jobs) == 0 || offset >= page.Total {
			break
		}
	}
	switch len(keys) {
	case 0:
		return "", failed("job %d not found in context %d (hyphae job list -c %d lists them)", n, id, id)
	case 1:
		return keys[0], nil
	}
	return "", usage("job %d is ambiguous in context %d: %s; give the key", n, id, strings.Join(keys, ", "))
}
