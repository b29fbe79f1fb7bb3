package flowfile

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

var flowKeys = []string{"name", "context", "env", "timeout", "on_failure", "jobs", "schedule", "on", "network"}

// ParseFile reads and validates the flow file at path; script_file paths
// are relative to its directory and messages name it as given.
func ParseFile(path string) (*File, []Warning, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, fmt.Errorf("flow file: %w", err)
	}
	return Parse(b, path, filepath.Dir(path))
}

// Parse decodes and validates a flow file's text. name is what error
// messages call it; baseDir is where script_file paths start. Every problem
// found is returned at once as Errors.
func Parse(b []byte, name, baseDir string) (*File, []Warning, error) {
	if name == "" {
		name = "flow.yaml"
	}
	p := &parser{src: name, dir: baseDir, needLines: map[[2]string]int{}}
	root, err := p.document(b)
	if err != nil {
		return nil, nil, err
	}
	f := p.flow(root)
	if len(p.errs) == 0 {
		p.validate(f)
	}
	if len(p.errs) > 0 {
		return nil, p.warns, p.errs.sorted()
	}
	return f, p.warns, nil
}

// parser collects every problem of one file.
type parser struct {
	src, dir  string
	errs      Errors
	warns     []Warning
	needLines map[[2]string]int // (job, need) → line
}

func (p *parser) fail(n *yaml.Node, job, format string, args ...any) {
	line := 0
	if n != nil {
		line = n.Line
	}
	p.errs = append(p.errs, &FileError{File: p.src, Line: line, Job: job, Msg: fmt.Sprintf(format, args...)})
}

func (p *parser) warn(line int, job, format string, args ...any) {
	p.warns = append(p.warns, Warning{File: p.src, Line: line, Job: job, Msg: fmt.Sprintf(format, args...)})
}

var yamlLine = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// document parses the YAML text into its root node.
func (p *parser) document(b []byte) (*yaml.Node, error) {
	dec := yaml.NewDecoder(strings.NewReader(string(b)))
	var doc yaml.Node
	err := dec.Decode(&doc)
	if errors.Is(err, io.EOF) || (err == nil && len(doc.Content) == 0) {
		return nil, Errors{{File: p.src, Msg: "empty file: want name, context and jobs"}}
	}
	if err != nil {
		return nil, p.syntaxError(err)
	}
	var more yaml.Node
	if err := dec.Decode(&more); !errors.Is(err, io.EOF) {
		return nil, Errors{{File: p.src, Line: more.Line, Msg: "more than one YAML document: one flow per file"}}
	}
	return doc.Content[0], nil
}

func (p *parser) syntaxError(err error) error {
	msg := err.Error()
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[1])
		return Errors{{File: p.src, Line: line, Msg: "YAML: " + m[2]}}
	}
	return Errors{{File: p.src, Msg: "YAML: " + strings.TrimPrefix(msg, "yaml: ")}}
}

// flow decodes the top-level mapping.
func (p *parser) flow(n *yaml.Node) *File {
	f := &File{Source: p.src, OnFailure: OnFailureWait}
	if n.Kind != yaml.MappingNode {
		p.fail(n, "", "want a mapping with name, context, env, timeout, on_failure and jobs, got %s", kindName(n))
		return f
	}
	var jobs *yaml.Node
	for _, e := range p.entries(n, "", "key") {
		switch e.key {
		case "name":
			f.Name = p.str(e, "")
		case "context":
			f.Context = p.contextID(e)
		case "env":
			f.Env = p.env(e, "")
		case "timeout":
			f.Timeout = p.duration(e, "")
		case "on_failure":
			f.OnFailure = p.onFailure(e)
		case "jobs":
			jobs = e.v
		case "schedule":
			f.Schedule = p.schedule(e)
		case "on":
			f.On = p.on(e)
		case "network": // network.go
			f.Network = p.network(e, "")
		default:
			p.unknownKey(e, "", flowKeys)
		}
	}
	if jobs == nil {
		p.fail(n, "", "no jobs: add a `jobs:` mapping of job name → {type, script, needs, …}")
	} else {
		f.Jobs = p.jobs(jobs)
	}
	if f.Name == "" {
		f.Name = defaultName(p.src)
	}
	return f
}

func defaultName(src string) string {
	base := filepath.Base(src)
	base = strings.TrimSuffix(base, filepath.Ext(base))
	if base == "" || base == "." || base == string(filepath.Separator) {
		return "flow"
	}
	return base
}
