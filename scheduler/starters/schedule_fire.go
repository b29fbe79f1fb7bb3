package starters

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"strconv"
	"time"

	"github.com/robfig/cron/v3"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/store"
	"github.com/hyphae-run/hyphae/scheduler/flowfile"
)

// CatchUpGrace: a tick handled within this of its time is on time and
// runs; one handled later was missed (the agent was down) and follows the
// schedule's catch_up policy.
const CatchUpGrace = time.Minute

// maxCatchUp bounds the missed ticks counted after a long downtime.
const maxCatchUp = 100000

// FireSchedules starts a run for each schedule of the context due at now
// (the agent's timers call it, a timers.Firer) and returns the next tick
// of any schedule (zero: none). Every decision is recorded with the tick
// in one step (store.ClaimTick) before a run starts, so a tick starts at
// most one run, however many agents fire the context and across restarts.
func (s *Schedules) FireSchedules(ctx context.Context, ctxID uint64, now time.Time) (time.Time, error) {
	due, next, err := s.st.DueSchedules(ctx, ctxID, now)
	if err != nil {
		return time.Time{}, err
	}
	for _, d := range due {
		n, err := s.fireSchedule(ctx, ctxID, d, now)
		if err != nil {
			s.log.Warn("schedule: tick", "context", ctxID, "name", d.Name, "err", err)
			n = now.Add(time.Second) // try again soon (Redis away)
		}
		if !n.IsZero() && (next.IsZero() || n.Before(next)) {
			next = n
		}
	}
	return next, nil
}

// tickPlan is what a due tick does.
type tickPlan struct {
	run        bool
	tick, next time.Time // the latest tick passed; the one after now
	missed     int64     // ticks before tick that passed unhandled
}

// planTick decides for a schedule due at due, handled at now: the latest
// tick passed runs when on time (within CatchUpGrace) or, missed, when
// catch_up is run_once; the ticks before it are missed either way.
func planTick(sched cron.Schedule, due, now time.Time, catchUp string) tickPlan {
	p := tickPlan{tick: due}
	for range maxCatchUp {
		n := sched.Next(p.tick)
		if n.After(now) {
			break
		}
		p.tick = n
		p.missed++
	}
	p.run = now.Sub(p.tick) <= CatchUpGrace || catchUp == flowfile.CatchUpRunOnce
	p.next = sched.Next(now)
	return p
}

// fireSchedule handles one due schedule and returns its next tick.
func (s *Schedules) fireSchedule(ctx context.Context, ctxID uint64, d store.DueSchedule, now time.Time) (time.Time, error) {
	h, err := s.st.LoadSchedule(ctx, ctxID, d.Name)
	if errors.Is(err, store.ErrNotFound) {
		return time.Time{}, nil // removed meanwhile
	}
	if err != nil {
		return time.Time{}, err
	}
	sched, err := (&flowfile.ScheduleSpec{Cron: h["cron"], TimeZone: h["timezone"]}).Schedule()
	if err != nil { // not a schedule this agent can read: pause it, saying why
		_ = s.st.SetScheduleFields(ctx, ctxID, d.Name, model.Hash{"last_error": err.Error()})
		return time.Time{}, s.st.PauseSchedule(ctx, ctxID, d.Name)
	}
	p := planTick(sched, d.Tick, now, h["catch_up"])
	var cancel uint64
	if p.run {
		p.run, cancel = s.overlap(ctx, ctxID, h)
	}
	counter := "skipped"
	if p.run {
		counter = "runs"
	}
	ok, err := s.st.ClaimTick(ctx, ctxID, d.Name, d.Tick, p.tick, p.next, counter, p.missed)
	if err != nil || !ok {
		return p.next, err
	}
	if cancel != 0 {
		if err := s.eng.CancelRun(ctx, ctxID, cancel); err != nil {
			s.log.Warn("schedule: cancel the previous run", "name", d.Name, "flow", cancel, "err", err)
		}
	}
	if p.run {
		s.startScheduled(ctx, ctxID, d.Name, h, p.tick)
	}
	return p.next, nil
}

// overlap applies the schedule's overlap policy to its last run: whether
// to run, and which flow to cancel first (0: none).
func (s *Schedules) overlap(ctx context.Context, ctxID uint64, h model.Hash) (bool, uint64) {
	last := uint64(atoi(h["last_flow"]))
	if last == 0 || h["overlap"] == flowfile.OverlapAllow {
		return true, 0
	}
	st, err := s.eng.RunStatus(ctx, ctxID, last)
	if err != nil || st.Terminal() {
		return true, 0 // gone (pruned) or over
	}
	if h["overlap"] == flowfile.OverlapCancel {
		return true, last
	}
	return false, 0
}

// startScheduled creates and starts a run of the schedule's flow and
// records it (or the error) on the schedule.
func (s *Schedules) startScheduled(ctx context.Context, ctxID uint64, name string, h model.Hash, tick time.Time) {
	id, err := s.startStored(ctx, ctxID, h, tick)
	fields := model.Hash{"last_error": ""}
	if err != nil {
		fields["last_error"] = err.Error()
		s.log.Warn("schedule: start a run", "context", ctxID, "name", name, "err", err)
	} else {
		fields["last_flow"] = strconv.FormatUint(id, 10)
		s.log.Info("schedule: run started", "context", ctxID, "name", name, "flow", id, "tick", tick)
	}
	if err := s.st.SetScheduleFields(ctx, ctxID, name, fields); err != nil {
		s.log.Warn("schedule: record the run", "name", name, "err", err)
	}
}

func (s *Schedules) startStored(ctx context.Context, ctxID uint64, h model.Hash, tick time.Time) (uint64, error) {
	var f flowfile.File
	if err := json.Unmarshal([]byte(h["flow"]), &f); err != nil {
		return 0, fmt.Errorf("the stored flow: %w", err)
	}
	f.Context = ctxID
	f.Env = maps.Clone(f.Env)
	if f.Env == nil {
		f.Env = map[string]string{}
	}
	f.Env[flowfile.EnvScheduleTick] = strconv.FormatInt(tick.Unix(), 10)
	id, err := s.eng.CreateRun(ctx, &f, uint64(atoi(h["caller_id"])), nil)
	if err != nil {
		return 0, err
	}
	return id, s.eng.StartRun(ctx, ctxID, id)
}
