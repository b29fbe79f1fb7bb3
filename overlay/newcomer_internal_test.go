package overlay

import (
	"context"
	"testing"
	"time"
)

// Many newcomers at once get this agent's record announced a bounded
// number of times, not twice each: answering each on its own made
// presence traffic grow with the square of the agents that started
// together. The last newcomer still gets two answers after it came.
func TestNewcomersAtOnceShareTheAnswers(t *testing.T) {
	saved := newcomerAgain
	newcomerAgain = 20 * time.Millisecond
	t.Cleanup(func() { newcomerAgain = saved })
	o := &Overlay{announce: make(chan struct{}, 1)}
	ctx, err := o.life.Start(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	o.ctx = ctx
	t.Cleanup(func() { o.life.Stop(); _ = o.life.Wait(context.Background()) })
	announced := 0
	drain := func() {
		select {
		case <-o.announce:
			announced++
		default:
		}
	}
	for range 50 {
		o.answerNewcomer()
		drain()
	}
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		o.answers.mu.Lock()
		busy := o.answers.busy
		o.answers.mu.Unlock()
		drain()
		if !busy && len(o.announce) == 0 {
			break
		}
		time.Sleep(time.Millisecond)
	}
	if announced < 3 || announced > 4 {
		t.Fatalf("50 newcomers at once: %d announcements; want 3 (now, then two for those that came meanwhile)", announced)
	}
}
