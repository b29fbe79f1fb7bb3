package cli

import (
	"context"
	"strings"
	"testing"

	"github.com/hyphae-run/hyphae/node/api"
	"github.com/hyphae-run/hyphae/node/api/wire"
)

// flow schedule pause|resume|remove take the context as every command
// does: --context N, -c N, or $HYPHAE_CONTEXT; with none, a usage error
// that says how to give one.
func TestScheduleActTakesContextLikeEveryCommand(t *testing.T) {
	var got []wire.ScheduleRef
	addr := fakeAPI(t, func(table *api.Table) {
		for _, verb := range []string{"pause", "resume"} {
			api.Register(table, "flow.schedule."+verb, "", func(_ context.Context, p wire.ScheduleRef) (*wire.ScheduleView, error) {
				got = append(got, p)
				return &wire.ScheduleView{Context: p.Context, Name: p.Name, Paused: verb == "pause"}, nil
			})
		}
		api.Register(table, "flow.schedule.remove", "", func(_ context.Context, p wire.ScheduleRef) (*struct{}, error) {
			got = append(got, p)
			return &struct{}{}, nil
		})
	})
	for _, verb := range []string{"pause", "resume", "remove"} {
		got = nil
		t.Setenv(envContext, "")
		for _, flag := range []string{"-c", "--context"} {
			if code, _, stderr := runAt(t, addr, "flow", "schedule", verb, "nightly", flag, "2"); code != ExitOK {
				t.Fatalf("flow schedule %s nightly %s 2: exit %d: %s", verb, flag, code, stderr)
			}
		}
		t.Setenv(envContext, "3")
		if code, _, stderr := runAt(t, addr, "flow", "schedule", verb, "nightly"); code != ExitOK {
			t.Fatalf("%s=3 flow schedule %s nightly: exit %d: %s", envContext, verb, code, stderr)
		}
		want := []wire.ScheduleRef{{Context: 2, Name: "nightly"}, {Context: 2, Name: "nightly"}, {Context: 3, Name: "nightly"}}
		if len(got) != 3 || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
			t.Fatalf("flow schedule %s asked for %+v, want %+v", verb, got, want)
		}
		t.Setenv(envContext, "")
		if code, _, stderr := runAt(t, addr, "flow", "schedule", verb, "nightly"); code != ExitUsage || !strings.Contains(stderr, "--context N (-c N) or set "+envContext) {
			t.Fatalf("flow schedule %s without a context: exit %d, %q; want %d and how to give one", verb, code, stderr, ExitUsage)
		}
	}
}
