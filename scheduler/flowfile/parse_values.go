package flowfile

import (
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// entry is one key: value pair of a mapping.
type entry struct {
	key  string
	k, v *yaml.Node
}

// entries lists a mapping's pairs in order, reporting duplicate keys
// (yaml.v3 decoding into a map would keep the last silently) and keys that
// are not plain strings. what names the keys in messages ("key", "job").
func (p *parser) entries(n *yaml.Node, job, what string) []entry {
	seen := map[string]int{}
	out := make([]entry, 0, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], deref(n.Content[i+1])
		if k.Kind != yaml.ScalarNode || k.Tag == "!!merge" {
			p.fail(k, job, "%s: want a plain name, got %s", what, kindName(k))
			continue
		}
		if first, dup := seen[k.Value]; dup {
			p.fail(k, job, "duplicate %s %q (first at line %d)", what, k.Value, first)
			continue
		}
		seen[k.Value] = k.Line
		out = append(out, entry{key: k.Value, k: k, v: v})
	}
	return out
}

func deref(n *yaml.Node) *yaml.Node {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	return n
}

func kindName(n *yaml.Node) string {
	switch {
	case n.Kind == yaml.MappingNode:
		return "a mapping"
	case n.Kind == yaml.SequenceNode:
		return "a list"
	case n.Tag == "!!null":
		return "nothing"
	case n.Tag == "!!merge":
		return "a merge key (<<)"
	case n.Kind == yaml.ScalarNode:
		return strconv.Quote(n.Value)
	}
	return "something else"
}

func isNull(n *yaml.Node) bool { return n.Kind == yaml.ScalarNode && n.Tag == "!!null" }

// str reads a scalar as text ("" for null).
func (p *parser) str(e entry, job string) string {
	if isNull(e.v) {
		return ""
	}
	if e.v.Kind != yaml.ScalarNode {
		p.fail(e.v, job, "%s: want a string, got %s", e.key, kindName(e.v))
		return ""
	}
	return e.v.Value
}

// needs reads one job name or a list of them.
func (p *parser) needs(e entry, job string) []string {
	var items []*yaml.Node
	switch {
	case isNull(e.v):
		return nil
	case e.v.Kind == yaml.ScalarNode:
		items = []*yaml.Node{e.v}
	case e.v.Kind == yaml.SequenceNode:
		items = e.v.Content
	default:
		p.fail(e.v, job, "needs: want a job name or a list of job names, got %s", kindName(e.v))
		return nil
	}
	out := make([]string, 0, len(items))
	for _, it := range items {
		it = deref(it)
		if it.Kind != yaml.ScalarNode || isNull(it) || it.Value == "" {
			p.fail(it, job, "needs: want a job name, got %s", kindName(it))
			continue
		}
		p.needLines[[2]string{job, it.Value}] = it.Line
		out = append(out, it.Value)
	}
	return out
}

var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// env reads a mapping of environment variables.
func (p *parser) env(e entry, job string) map[string]string {
	if isNull(e.v) {
		return nil
	}
	if e.v.Kind != yaml.MappingNode {
		p.fail(e.v, job, "env: want a mapping of NAME: value, got %s", kindName(e.v))
		return nil
	}
	out := map[string]string{}
	for _, kv := range p.entries(e.v, job, "env var") {
		switch {
		case !envName.MatchString(kv.key):
			p.fail(kv.k, job, "env %q: not a valid variable name (letters, digits and _, not starting with a digit)", kv.key)
		case strings.HasPrefix(strings.ToUpper(kv.key), "HYPHAE_"):
			p.fail(kv.k, job, "env %q: HYPHAE_* names are reserved for the agent", kv.key)
		case isNull(kv.v):
			out[kv.key] = ""
		case kv.v.Kind != yaml.ScalarNode:
			p.fail(kv.v, job, "env %q: want a string value, got %s", kv.key, kindName(kv.v))
		default:
			out[kv.key] = kv.v.Value
		}
	}
	return out
}

// duration reads a Go duration ("90s", "10m", "1h30m") or whole seconds.
func (p *parser) duration(e entry, job string) time.Duration {
	v := e.v
	bad := func() time.Duration {
		p.fail(v, job, "%s %s: want a duration such as 30s, 10m or 1h30m", e.key, kindName(v))
		return 0
	}
	if v.Kind != yaml.ScalarNode || isNull(v) {
		return bad()
	}
	if v.Tag == "!!int" {
		n, err := strconv.ParseInt(v.Value, 0, 64)
		if err != nil || n < 0 || n > math.MaxInt64/int64(time.Second) {
			return bad()
		}
		return time.Duration(n) * time.Second
	}
	d, err := time.ParseDuration(v.Value)
	if err != nil || d < 0 {
		return bad()
	}
	return d
}

// count reads a whole number ≥ 0 (retries).
func (p *parser) count(e entry, job string) int64 {
	n, err := strconv.ParseInt(e.v.Value, 0, 64)
	if e.v.Kind != yaml.ScalarNode || e.v.Tag != "!!int" || err != nil || n < 0 || n > 1000 {
		p.fail(e.v, job, "%s %s: want a whole number from 0 to 1000", e.key, kindName(e.v))
		return 0
	}
	return n
}

// Bounds of the per-job limits a flow file may ask for.
const (
	MaxMemoryMB = 1 << 24 // 16 TiB
	MinCPU      = 0.01    // cores; the kernel's smallest useful share of a 100 ms period
	MaxCPU      = 4096
)

// megabytes reads memory_mb: a whole number of MiB from 1 to MaxMemoryMB.
func (p *parser) megabytes(e entry, job string) int64 {
	n, err := strconv.ParseInt(e.v.Value, 0, 64)
	if e.v.Kind != yaml.ScalarNode || e.v.Tag != "!!int" || err != nil || n < 1 || n > MaxMemoryMB {
		p.fail(e.v, job, "%s %s: want a whole number of MiB from 1 to %d, such as 512", e.key, kindName(e.v), MaxMemoryMB)
		return 0
	}
	return n
}

// cores reads cpu: a decimal number of cores from MinCPU to MaxCPU.
func (p *parser) cores(e entry, job string) float64 {
	f, err := strconv.ParseFloat(e.v.Value, 64)
	num := e.v.Tag == "!!int" || e.v.Tag == "!!float"
	if e.v.Kind != yaml.ScalarNode || !num || err != nil || !(f >= MinCPU && f <= MaxCPU) {
		p.fail(e.v, job, "%s %s: want a number of cores from %g to %d, such as 0.5 or 2", e.key, kindName(e.v), MinCPU, MaxCPU)
		return 0
	}
	return f
}

func (p *parser) boolean(e entry, job string) bool {
	b, err := strconv.ParseBool(e.v.Value)
	if e.v.Kind != yaml.ScalarNode || e.v.Tag != "!!bool" || err != nil {
		p.fail(e.v, job, "%s %s: want true or false", e.key, kindName(e.v))
		return false
	}
	return b
}

func (p *parser) contextID(e entry) uint64 {
	n, err := strconv.ParseUint(e.v.Value, 10, 64)
	if e.v.Kind != yaml.ScalarNode || e.v.Tag != "!!int" || err != nil || n == 0 {
		p.fail(e.v, "", "context %s: want a context id, 1 or more", kindName(e.v))
		return 0
	}
	return n
}

func (p *parser) onFailure(e entry) OnFailure {
	v := OnFailure(p.str(e, ""))
	if v != OnFailureWait && v != OnFailureStop {
		p.fail(e.v, "", "on_failure %s: want wait or stop", kindName(e.v))
		return OnFailureWait
	}
	return v
}

func (p *parser) unknownKey(e entry, job string, known []string) {
	if s := suggest(e.key, known); s != "" {
		p.fail(e.k, job, "unknown key %q (did you mean %q?)", e.key, s)
		return
	}
	p.fail(e.k, job, "unknown key %q (want one of %s)", e.key, strings.Join(known, ", "))
}
