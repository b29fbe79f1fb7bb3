package cli

import (
	"fmt"
	"strings"

	"github.com/hyphae-run/hyphae/node/api/wire"
)

// dotGraph draws a flow's DAG in Graphviz dot: a node per job, labelled
// with its name, state and job key, coloured by state; an edge from each
// need to the job that needs it. `hyphae flow status 3 --dot | dot -Tsvg`.
func dotGraph(st *wire.FlowState) string {
	var b strings.Builder
	fmt.Fprintf(&b, "digraph %q {\n  rankdir=LR;\n  node [shape=box, style=\"rounded,filled\"];\n",
		fmt.Sprintf("flow %d %s", st.ID, st.Name))
	for _, j := range st.Jobs {
		fmt.Fprintf(&b, "  %q [label=%q, fillcolor=%q];\n", j.Name, nodeLabel(&j, "\n"), stateColour(string(j.State)))
	}
	for _, j := range st.Jobs {
		for _, n := range j.Needs {
			fmt.Fprintf(&b, "  %q -> %q;\n", n, j.Name)
		}
	}
	b.WriteString("}\n")
	return b.String()
}

// mermaidGraph draws a flow's DAG as a Mermaid flowchart, which GitHub
// renders inside a ```mermaid block. Mermaid ids must be plain words, so
// jobs are n0, n1, … labelled with their names.
func mermaidGraph(st *wire.FlowState) string {
	var b strings.Builder
	b.WriteString("flowchart LR\n")
	id := make(map[string]string, len(st.Jobs))
	for i, j := range st.Jobs {
		id[j.Name] = fmt.Sprintf("n%d", i)
		fmt.Fprintf(&b, "  %s[\"%s\"]:::%s\n", id[j.Name], strings.ReplaceAll(nodeLabel(&j, "<br/>"), `"`, "#quot;"), j.State)
	}
	for _, j := range st.Jobs {
		for _, n := range j.Needs {
			if from, ok := id[n]; ok {
				fmt.Fprintf(&b, "  %s --> %s\n", from, id[j.Name])
			}
		}
	}
	for _, s := range []string{"pending", "ready", "dispatched", "running", "completed", "failed", "cancelled", "unknown"} {
		fmt.Fprintf(&b, "  classDef %s fill:%s\n", s, stateColour(s))
	}
	return b.String()
}

// nodeLabel is "name<sep>state<sep>key" (the key once the job exists).
func nodeLabel(j *wire.FlowJobState, sep string) string {
	parts := []string{j.Name, string(j.State)}
	if j.Key != "" {
		parts = append(parts, j.Key)
	}
	return strings.Join(parts, sep)
}

// stateColour is a node's fill colour by state.
func stateColour(state string) string {
	switch state {
	case "completed":
		return "#c8e6c9"
	case "failed":
		return "#ffcdd2"
	case "running", "dispatched":
		return "#bbdefb"
	case "cancelled":
		return "#e0e0e0"
	case "unknown":
		return "#fff9c4"
	}
	return "#ffffff"
}
