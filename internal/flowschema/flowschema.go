// Package flowschema checks flow files against docs/flow.schema.json, the
// JSON Schema editors use, and finds the flows a Markdown file shows. It
// serves tests: what the agent's parser accepts, the schema must accept,
// and the flows the docs show must be valid.
package flowschema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"gopkg.in/yaml.v3"
)

// SchemaFile is the schema's path from the repository root.
const SchemaFile = "docs/flow.schema.json"

// Load compiles the schema of the repository at root.
func Load(root string) (*jsonschema.Schema, error) {
	c := jsonschema.NewCompiler()
	s, err := c.Compile(filepath.Join(root, SchemaFile))
	if err != nil {
		return nil, fmt.Errorf("flowschema.Load: %w", err)
	}
	return s, nil
}

// Validate decodes a flow file's YAML with the parser's YAML library and
// validates it against s, as an editor does with the file's JSON form.
func Validate(s *jsonschema.Schema, text []byte) error {
	var v any
	if err := yaml.Unmarshal(text, &v); err != nil {
		return fmt.Errorf("flowschema.Validate: YAML: %w", err)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("flowschema.Validate: as JSON: %w", err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		return fmt.Errorf("flowschema.Validate: %w", err)
	}
	return s.Validate(inst)
}

var (
	fence   = regexp.MustCompile("(?s)```([a-z]*)[^\n]*\n(.*?)```")
	heredoc = regexp.MustCompile(`(?s)cat > \S+\.ya?ml <<'?EOF'?\n(.*?)\nEOF\n`)
)

// Snippets returns the flows a Markdown text shows: ```yaml blocks with a
// jobs: key, and the files shell blocks write with cat > F.yaml <<EOF
// (their \$ unescaped, as the shell does). Placeholders such as
// <alice's peer ID> are left for the caller to substitute.
func Snippets(md []byte) []string {
	var out []string
	for _, m := range fence.FindAllSubmatch(md, -1) {
		lang, body := string(m[1]), string(m[2])
		switch {
		case lang == "yaml" && strings.Contains(body, "\njobs:") || strings.HasPrefix(body, "jobs:"):
			out = append(out, body)
		case lang == "sh" || lang == "bash":
			for _, h := range heredoc.FindAllStringSubmatch(body, -1) {
				out = append(out, strings.ReplaceAll(h[1], `\$`, "$"))
			}
		}
	}
	return out
}
