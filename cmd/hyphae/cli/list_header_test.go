package cli

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/node/api"
	"github.com/hyphae-run/hyphae/node/api/wire"
)

// ctxParams are the params of the list methods that take a context.
type ctxParams struct {
	Context uint64 `json:"context"`
}

// flow list, runner list and actor list print a header line above their
// rows, as job list does; --json stays the bare list.
func TestListsPrintAHeader(t *testing.T) {
	addr := fakeAPI(t, func(table *api.Table) {
		api.Register(table, "flow.list", "", func(context.Context, ctxParams) ([]wire.FlowSummary, error) {
			return []wire.FlowSummary{{ID: 3, ContextID: 1, Name: "diamond", Status: model.FlowStatus("finished"),
				Progress: wire.FlowProgress{Done: 4, Total: 4}, CreatedAt: 1}}, nil
		})
		api.Register(table, "runner.list", "", func(context.Context, ctxParams) ([]wire.RunnerView, error) {
			return []wire.RunnerView{{ID: 1, Ref: "runner:1", Pubkey: "12D3KooWabc", ScriptTypes: []string{"sh", "python"}}}, nil
		})
		api.Register(table, "actor.list", "", func(context.Context, struct{}) ([]wire.ActorView, error) {
			return []wire.ActorView{{ID: 1, Pubkey: "12D3KooWself", Self: true}, {ID: 2, Pubkey: "12D3KooWbob"}}, nil
		})
	})
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"flow", "list", "-c", "1"}, `^ID +NAME +STATUS +DONE +CREATED +ERROR\n3 +diamond +finished +4/4 +\S+ \S+ *\n$`},
		{[]string{"runner", "list", "-c", "1"}, `^RUNNER +PEER +TYPES\nrunner:1 +12D3KooWabc +sh,python\n$`},
		{[]string{"actor", "list"}, `^ID +PEER\n1 +12D3KooWself \(this agent\)\n2 +12D3KooWbob\n$`},
	} {
		code, out, stderr := runAt(t, addr, c.args...)
		if code != ExitOK || !regexp.MustCompile(c.want).MatchString(out) {
			t.Errorf("hyphae %s: exit %d (%s), stdout:\n%s\nwant %s", strings.Join(c.args, " "), code, stderr, out, c.want)
		}
		code, out, _ = runAt(t, addr, append(c.args, "--json")...)
		if code != ExitOK || !strings.HasPrefix(out, "[") {
			t.Errorf("hyphae %s --json: exit %d, stdout %q; want the bare JSON list", strings.Join(c.args, " "), code, out)
		}
	}
}
