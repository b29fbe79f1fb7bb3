package starters

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"sort"
	"strconv"
	"time"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/store"
	"github.com/hyphae-run/hyphae/scheduler/flowfile"
)

// ErrNoTrigger: the flow file has no `on:`.
var ErrNoTrigger = errors.New("the flow file has no on: add `on: {event: order.created}` (docs/events.md)")

// Flow fields (Extra) of a run an event started.
const (
	fEventID   = model.ExtraEventID
	fEventName = model.ExtraEventName
	fCorrID    = model.ExtraCorrelationID
	fTraceID   = model.ExtraTraceID
)

// Triggers starts the runs of flow files with an `on:`: each event of a
// context that a trigger matches starts one run of its flow through the
// engine, however often the event is handled.
type Triggers struct {
	eng    Engine
	st     TriggerStore
	flows  FlowLister
	log    *slog.Logger
	now    func() time.Time
	self   string      // this agent's peer ID: the sender of its own events
	listen listenCache // the event names triggers listen for (listen.go)
}

// NewTriggers returns the event starter over eng, st and flows; now is
// the clock, self this agent's peer ID.
func NewTriggers(eng Engine, st TriggerStore, flows FlowLister, log *slog.Logger, now func() time.Time, self string) *Triggers {
	return &Triggers{eng: eng, st: st, flows: flows, log: log, now: now, self: self}
}

// Trigger is an installed flow file with `on:`: each matching event of
// its context starts one run of it as Caller.
type Trigger struct {
	Flow      *flowfile.File `json:"flow"`
	Caller    uint64         `json:"caller_id"`
	CreatedAt int64          `json:"created_at"`
}

// TriggerView is a trigger as flow.trigger.* show it.
type TriggerView struct {
	Name        string            `json:"name"`
	Context     uint64            `json:"context"`
	Event       string            `json:"event"`
	Where       map[string]string `json:"where,omitempty"`
	Correlation string            `json:"correlation,omitempty"`
	CreatedAt   int64             `json:"created_at"`
}

// AddTrigger installs f's `on:` in f.Context, keyed by the flow's name
// (adding it again replaces it): from now on, each matching event starts a
// run of the flow as caller.
func (s *Triggers) AddTrigger(ctx context.Context, f *flowfile.File, caller uint64) (*TriggerView, error) {
	if f.On == nil {
		return nil, ErrNoTrigger
	}
	if f.Context == 0 {
		return nil, fmt.Errorf("starters.AddTrigger: %s: no context: add `context: N` to the file or pass one", f.Source)
	}
	t := Trigger{Flow: f, Caller: caller, CreatedAt: s.now().Unix()}
	b, err := json.Marshal(t)
	if err != nil {
		return nil, fmt.Errorf("starters.AddTrigger: %w", err)
	}
	if err := s.st.SaveTrigger(ctx, f.Context, f.Name, string(b)); err != nil {
		return nil, fmt.Errorf("starters.AddTrigger: %w", err)
	}
	s.eng.Serve(f.Context)
	s.forgetListens(f.Context)
	s.log.Info("trigger added", "context", f.Context, "name", f.Name, "event", f.On.Event)
	return triggerView(f.Context, f.Name, &t), nil
}

// RemoveTrigger uninstalls the trigger of flow name (store.ErrNotFound:
// none).
func (s *Triggers) RemoveTrigger(ctx context.Context, ctxID uint64, name string) error {
	return s.st.DeleteTrigger(ctx, ctxID, name)
}

// Triggers lists a context's triggers by name.
func (s *Triggers) Triggers(ctx context.Context, ctxID uint64) ([]*TriggerView, error) {
	ts, err := s.triggers(ctx, ctxID)
	if err != nil {
		return nil, err
	}
	out := make([]*TriggerView, 0, len(ts))
	for name, t := range ts {
		out = append(out, triggerView(ctxID, name, t))
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// triggers reads a context's triggers; one that does not decode is
// skipped with a warning.
func (s *Triggers) triggers(ctx context.Context, ctxID uint64) (map[string]*Trigger, error) {
	raw, err := s.st.Triggers(ctx, ctxID)
	if err != nil {
		return nil, err
	}
	out := make(map[string]*Trigger, len(raw))
	for name, v := range raw {
		var t Trigger
		if err := json.Unmarshal([]byte(v), &t); err != nil || t.Flow == nil || t.Flow.On == nil {
			s.log.Warn("trigger: cannot read", "context", ctxID, "name", name, "err", err)
			continue
		}
		out[name] = &t
	}
	return out, nil
}

func triggerView(ctxID uint64, name string, t *Trigger) *TriggerView {
	on := t.Flow.On
	return &TriggerView{Name: name, Context: ctxID, Event: on.Event, Where: on.Where,
		Correlation: on.Correlation, CreatedAt: t.CreatedAt}
}

// Fire starts a run of each trigger of the context that event e matches
// (the engine's event loop calls it for each event of the context).
func (s *Triggers) Fire(ctx context.Context, ctxID uint64, e *model.Event, m *model.Message) error {
	ts, err := s.triggers(ctx, ctxID)
	if err != nil {
		return err
	}
	for name, t := range ts {
		if t.Flow.On.Event != e.Name || !matchWhere(t.Flow.On.Where, e, s.self) {
			continue
		}
		if err := s.startTriggered(ctx, ctxID, name, t, e, m); err != nil {
			return fmt.Errorf("trigger %s: %w", name, err)
		}
	}
	return nil
}

// startTriggered starts the run of trigger name for event e, once: the
// claim (store.ClaimEventRun) is recorded before the run is created, and
// a claim left by a crash is resolved by looking for the run it made.
func (s *Triggers) startTriggered(ctx context.Context, ctxID uint64, name string, t *Trigger,
	e *model.Event, m *model.Message) error {
	prev, err := s.st.ClaimEventRun(ctx, ctxID, e.ID, name)
	if err != nil {
		return err
	}
	var id uint64
	switch prev {
	case "":
	case store.EventRunStarting: // a crash after the claim: the run may exist
		id, err = s.findEventRun(ctx, ctxID, t.Flow.Name, e.ID)
	default:
		id, err = strconv.ParseUint(prev, 10, 64)
	}
	if err != nil {
		return err
	}
	if id == 0 {
		id, err := s.createTriggered(ctx, ctxID, t, e, m)
		if err != nil {
			return err
		}
		if err := s.st.SetEventRun(ctx, ctxID, e.ID, name, strconv.FormatUint(id, 10)); err != nil {
			return err
		}
		s.log.Info("trigger: run started", "context", ctxID, "trigger", name, "event", e.Name,
			"event_id", e.ID, "flow", id)
		return s.eng.StartRun(ctx, ctxID, id)
	}
	return s.startIfCreated(ctx, ctxID, id, name, e)
}

// startIfCreated starts flow id, which an earlier handling of event e
// created, unless it started already.
func (s *Triggers) startIfCreated(ctx context.Context, ctxID, id uint64, name string, e *model.Event) error {
	st, err := s.eng.RunStatus(ctx, ctxID, id)
	if errors.Is(err, store.ErrNotFound) {
		return nil // pruned since
	}
	if err != nil || st != model.FlowDispatched {
		return err
	}
	s.log.Info("trigger: run started", "context", ctxID, "trigger", name, "event", e.Name,
		"event_id", e.ID, "flow", id)
	return s.eng.StartRun(ctx, ctxID, id)
}

// findEventRun returns the id of the run of flow name that event eventID
// started, 0 when there is none.
func (s *Triggers) findEventRun(ctx context.Context, ctxID uint64, name, eventID string) (uint64, error) {
	fs, err := s.flows.ListFlows(ctx, ctxID)
	if err != nil {
		return 0, err
	}
	for _, f := range fs {
		if f.Name == name && f.Extra[fEventID] == eventID {
			return f.ID, nil
		}
	}
	return 0, nil
}

// createTriggered creates the run of t for event e: the event reaches its
// jobs as env, and the flow keeps the event's id, name, correlation id
// and trace id.
func (s *Triggers) createTriggered(ctx context.Context, ctxID uint64, t *Trigger, e *model.Event,
	m *model.Message) (uint64, error) {
	f := *t.Flow
	f.Context = ctxID
	f.Env = maps.Clone(f.Env)
	if f.Env == nil {
		f.Env = map[string]string{}
	}
	corr := e.CorrelationID
	if c := f.On.Correlation; c != "" {
		if v, ok := flowfile.PayloadField(e.Data, c); ok {
			corr = v
		}
	}
	f.Env[flowfile.EnvEventName], f.Env[flowfile.EnvEvent], f.Env[flowfile.EnvEventID] = e.Name, string(e.Data), e.ID
	f.Env[flowfile.EnvCorrelationID] = corr
	from := e.From // another actor's event: its run's jobs run contained (docs/design.md)
	if from == s.self {
		from = ""
	}
	return s.eng.CreateRun(ctx, &f, t.Caller, func(fl *model.Flow, jobs []*model.RunnerJob) {
		for _, j := range jobs {
			j.SetTriggeredBy(from)
		}
		fl.Extra[fEventID], fl.Extra[fEventName], fl.Extra[fCorrID] = e.ID, e.Name, corr
		if tp := m.Extra[fTraceID]; tp != "" {
			fl.Extra[fTraceID] = tp
		}
	})
}
