package flowfile_test

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/hyphae-run/hyphae/internal/flowschema"
	"github.com/hyphae-run/hyphae/scheduler/flowfile"
)

// examplePeer stands in for the <… peer ID> placeholders of the docs.
const examplePeer = "12D3KooWEgYLD9nXKiZhcWrnZJ8quTEwMjTi6WcRsVhg3g2ZgEMc"

var placeholder = regexp.MustCompile(`<[^<>\n]*peer ID>|12D3KooW\.\.\.`)

func loadSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	s, err := flowschema.Load("../..")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// exampleFlows: every flow the repository shows a user, by where it is.
func exampleFlows(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	files, _ := filepath.Glob("../../configs/flows/*.yaml")
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out[f] = string(b)
	}
	for _, md := range []string{"../../README.md", "../../docs/flows.md", "../../docs/design.md"} {
		b, err := os.ReadFile(md)
		if err != nil {
			t.Fatal(err)
		}
		for i, s := range flowschema.Snippets(b) {
			out[md+"#"+string(rune('a'+i))] = placeholder.ReplaceAllString(s, examplePeer)
		}
	}
	if len(out) < 6 {
		t.Fatalf("found only %d example flows: %v", len(out), out)
	}
	return out
}

// Every example flow of the repository (configs/flows, the README's and
// the docs' snippets) is accepted by the parser and by the JSON Schema
// editors use, so the schema cannot drift from what the agent takes.
func TestExampleFlowsValidateAgainstTheSchema(t *testing.T) {
	s := loadSchema(t)
	for where, text := range exampleFlows(t) {
		if _, _, err := flowfile.Parse([]byte(text), where, "../../configs/flows"); err != nil {
			t.Errorf("%s: the parser refuses it: %v\n%s", where, err, text)
		}
		if err := flowschema.Validate(s, []byte(text)); err != nil {
			t.Errorf("%s: the schema refuses it: %v\n%s", where, err, text)
		}
	}
}

// What the parser accepts the schema accepts; a file the parser refuses
// for an unknown key (or a misspelt one) the schema refuses too.
func TestSchemaAgreesWithTheParser(t *testing.T) {
	s := loadSchema(t)
	more := []string{
		"jobs:\n  a: {type: sh, script: x, nedds: [b]}\n",
		"jobz: {}\njobs:\n  a: {type: sh, script: x}\n",
		"name: n\ncontext: 1\njobs:\n  a: {type: sh, script: x}\nenvironment: {A: b}\n",
		"jobs:\n  a: {type: sh, script: x, retry: 2}\n",
		"schedule: {cron: '@daily', every: 1}\njobs:\n  a: {type: sh, script: x}\n",
	}
	accepted := []string{
		"schedule: '*/5 * * * *'\njobs:\n  a: {type: sh, script: x, run_at: 2026-12-24T18:00:00Z}\n",
		"schedule: {cron: '@every 5m', catch_up: run_once, overlap: cancel_previous}\njobs:\n  a: {type: sh, script: x, run_at: 1798000000}\n",
		"network: none\njobs:\n  a: {type: sh, script: x, network: host, compensate: {type: sh, script: y, network: none}}\n",
	}
	for _, text := range accepted {
		if _, _, err := flowfile.Parse([]byte(text), "ok.yaml", "../../configs/flows"); err != nil {
			t.Errorf("the parser refuses: %v\n%s", err, text)
		}
	}
	for _, text := range slices.Concat(parseSeeds, more, accepted) {
		_, _, perr := flowfile.Parse([]byte(text), "seed.yaml", "../../configs/flows")
		serr := flowschema.Validate(s, []byte(text))
		switch {
		case perr == nil && serr != nil:
			t.Errorf("the parser accepts, the schema refuses: %v\n%s", serr, text)
		case perr != nil && strings.Contains(perr.Error(), "unknown key") && serr == nil:
			t.Errorf("the parser refuses an unknown key (%v), the schema accepts:\n%s", perr, text)
		}
	}
}

// Mistakes a schema can express are refused by both, so an editor marks
// them before the agent does.
func TestSchemaRefusesWhatTheParserRefuses(t *testing.T) {
	s := loadSchema(t)
	for _, text := range []string{
		"jobs: {}\n",
		"jobs:\n  a: {script: x}\n",
		"jobs:\n  a: {type: sh}\n",
		"jobs:\n  a: {type: sh, script: x, script_file: y.sh}\n",
		"on_failure: later\njobs:\n  a: {type: sh, script: x}\n",
		"context: 0\njobs:\n  a: {type: sh, script: x}\n",
		"jobs:\n  a: {type: sh, script: x, retries: -1}\n",
		"jobs:\n  a: {type: sh, script: x, timeout: soon}\n",
		"jobs:\n  a: {type: sh, script: x, cpu: 0}\n",
		"jobs:\n  a: {type: sh, script: x, runner: bob}\n",
		"jobs:\n  a: {type: sh, script: x, env: {HYPHAE_X: 1}}\n",
		"jobs:\n  9a: {type: sh, script: x}\n",
		"jobs:\n  a: {type: 'sh; rm -rf /', script: x}\n",
		"jobs:\n  a: {type: sh, script: x, run_at: 2026-12-24T18:00:00Z, delay: 5m}\n",
		"schedule: {cron: '@daily', overlap: sometimes}\njobs:\n  a: {type: sh, script: x}\n",
		"schedule: {timezone: UTC}\njobs:\n  a: {type: sh, script: x}\n",
		"jobs:\n  a: {type: sh, script: x, network: off}\n",
		"network: ''\njobs:\n  a: {type: sh, script: x}\n",
		"jobs:\n  a: {type: sh, script: x, compensate: {type: sh, script: y, network: lan}}\n",
	} {
		if _, _, err := flowfile.Parse([]byte(text), "bad.yaml", "../../configs/flows"); err == nil {
			t.Errorf("the parser accepts:\n%s", text)
		}
		if err := flowschema.Validate(s, []byte(text)); err == nil {
			t.Errorf("the schema accepts:\n%s", text)
		}
	}
}
