package scheduler_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/scheduler"
)

// TestConcurrentFlows runs 16 flows over two contexts at once while half of
// them are cancelled mid-way: every flow ends, finished ones ran each job
// once, cancelled ones ran nothing after the cancel.
func TestConcurrentFlows(t *testing.T) {
	e := newEnv(t, 3)
	w2 := startWorker(t, e.srv, 2, 3, "sh", "noop")
	cfg := e.config()
	cfg.Contexts = func(context.Context) ([]uint64, error) { return []uint64{1, 2}, nil }
	cfg.Stop = func(ctx context.Context, c uint64, key string, j *model.RunnerJob) error {
		if c == 2 {
			return w2.Stop(ctx, c, key, j)
		}
		return e.w.Stop(ctx, c, key, j)
	}
	s := e.sched(t, cfg)
	var flows []*model.Flow
	for i := 0; i < 16; i++ {
		text := fmt.Sprintf("context: %d\n", 1+i%2) + chainAndFan(i)
		flows = append(flows, e.run(t, s, text))
	}
	var wg sync.WaitGroup
	for i, fl := range flows {
		if i%4 != 3 {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := s.Cancel(e.ctx, fl.ContextID, fl.ID)
			if err != nil && !errors.Is(err, scheduler.ErrEnded) {
				t.Errorf("Cancel %d: %v", fl.ID, err)
			}
		}()
	}
	wg.Wait()
	for i, fl := range flows {
		st, err := s.Wait(e.ctx, fl.ContextID, fl.ID)
		if err != nil {
			t.Fatal(err)
		}
		if i%4 != 3 {
			wantFlow(t, st, model.FlowFinished)
		} else if st.Status == model.FlowError && st.Error != "cancelled" {
			t.Fatalf("flow %d: error %q", fl.ID, st.Error)
		}
	}
	for i, fl := range flows {
		w := map[uint64]*worker{1: e.w, 2: w2}[fl.ContextID]
		st, _ := s.Status(e.ctx, fl.ContextID, fl.ID)
		for _, j := range st.Jobs {
			n := w.countKey(j.Key)
			if n > 1 || (i%4 != 3 && n != 1) {
				t.Errorf("flow %d/%d job %s ran %d times", fl.ContextID, fl.ID, j.Name, n)
			}
		}
	}
}

// chainAndFan is a small flow: a → b1..b5 → c, named per flow.
func chainAndFan(i int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "name: f%d\njobs:\n  a: {type: sh, script: 'sleep 0.0%d'}\n", i, i%10)
	for k := 1; k <= 5; k++ {
		fmt.Fprintf(&b, "  b%d: {type: noop, script: x, needs: a}\n", k)
	}
	b.WriteString("  c: {type: sh, script: 'true', needs: [b1, b2, b3, b4, b5]}\n")
	return b.String()
}
