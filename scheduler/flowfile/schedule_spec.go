package flowfile

import (
	"fmt"
	"strings"
	"time"

	"github.com/robfig/cron/v3"
	"gopkg.in/yaml.v3"
)

// ScheduleSpec is a flow file's schedule: when to start a run of the flow.
type ScheduleSpec struct {
	// Cron is a cron line of 5 fields (minute hour day month weekday) or 6
	// (seconds first), or a descriptor: @every 5m, @hourly, @daily, …
	Cron string `json:"cron"`
	// TimeZone is an IANA zone (Europe/Brussels) the cron line is read in;
	// "" = the agent's local time.
	TimeZone string `json:"timezone,omitempty"`
	// CatchUp says what a tick missed (the agent was down) does: skip
	// (default) starts nothing for it; run_once starts one run for all the
	// ticks missed.
	CatchUp string `json:"catch_up"`
	// Overlap says what a tick does while the previous run still goes:
	// skip (default) starts nothing, allow starts another, cancel_previous
	// cancels it and starts a new one.
	Overlap string `json:"overlap"`
}

// Catch-up and overlap policies.
const (
	CatchUpSkip    = "skip"
	CatchUpRunOnce = "run_once"
	OverlapSkip    = "skip"
	OverlapAllow   = "allow"
	OverlapCancel  = "cancel_previous"
)

var cronParser = cron.NewParser(cron.SecondOptional | cron.Minute | cron.Hour | cron.Dom |
	cron.Month | cron.Dow | cron.Descriptor)

// Schedule parses the cron line in its time zone.
func (sp *ScheduleSpec) Schedule() (cron.Schedule, error) {
	line := sp.Cron
	if sp.TimeZone != "" {
		if _, err := time.LoadLocation(sp.TimeZone); err != nil {
			return nil, fmt.Errorf("timezone %q: not a known time zone (such as Europe/Brussels or UTC)", sp.TimeZone)
		}
		line = "CRON_TZ=" + sp.TimeZone + " " + line
	}
	s, err := cronParser.Parse(line)
	if err != nil {
		return nil, fmt.Errorf("cron %q: %v (want 5 fields: minute hour day month weekday, 6 with seconds first, or @every 5m, @daily, …)", sp.Cron, err)
	}
	return s, nil
}

var scheduleKeys = []string{"cron", "timezone", "catch_up", "overlap"}

// schedule reads `schedule:`: a cron line, or a mapping with cron,
// timezone, catch_up and overlap.
func (p *parser) schedule(e entry) *ScheduleSpec {
	sp := &ScheduleSpec{CatchUp: CatchUpSkip, Overlap: OverlapSkip}
	switch {
	case e.v.Kind == yaml.ScalarNode && !isNull(e.v):
		sp.Cron = e.v.Value
	case e.v.Kind == yaml.MappingNode:
		for _, f := range p.entries(e.v, "", "key") {
			switch f.key {
			case "cron":
				sp.Cron = p.str(f, "")
			case "timezone":
				sp.TimeZone = p.str(f, "")
			case "catch_up":
				sp.CatchUp = p.oneOf(f, CatchUpSkip, CatchUpRunOnce)
			case "overlap":
				sp.Overlap = p.oneOf(f, OverlapSkip, OverlapAllow, OverlapCancel)
			default:
				p.unknownKey(f, "", scheduleKeys)
			}
		}
	default:
		p.fail(e.v, "", "schedule: want a cron line or a mapping with cron, timezone, catch_up, overlap; got %s", kindName(e.v))
		return nil
	}
	if strings.TrimSpace(sp.Cron) == "" {
		p.fail(e.v, "", "schedule: no cron line (such as '0 3 * * *' or '@every 5m')")
		return nil
	}
	if _, err := sp.Schedule(); err != nil {
		p.fail(e.v, "", "schedule: %v", err)
	}
	return sp
}

// oneOf reads a scalar that must be one of allowed.
func (p *parser) oneOf(e entry, allowed ...string) string {
	v := p.str(e, "")
	for _, a := range allowed {
		if v == a {
			return v
		}
	}
	p.fail(e.v, "", "%s %q: want one of %s", e.key, v, strings.Join(allowed, ", "))
	return allowed[0]
}
