package node_test

import (
	"bufio"
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hyphae-run/hyphae/node/api/wire"
)

// The job event stream delivers the job's output lines live and ends with
// the job; the flow stream sends each change and ends with the flow.
func TestEventStreams(t *testing.T) {
	t.Parallel()
	a := startAgent(t, agentOpts{})
	a.call(t, "context.create", map[string]any{"id": 1}, nil)
	var j wire.JobView
	a.call(t, "job.run", map[string]any{"context": 1, "type": "sh", "script": "for i in 1 2 3; do echo line$i; done"}, &j)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	body, err := a.client.Stream(ctx, "/events/job?context=1&key="+j.Key)
	if err != nil {
		t.Fatal(err)
	}
	events := readSSE(t, body)
	all := strings.Join(events, "\n")
	if !strings.Contains(all, "line3") || !strings.HasPrefix(events[len(events)-1], "end ") || !strings.Contains(events[len(events)-1], `"finished"`) {
		t.Fatalf("job events:\n%s", all)
	}

	var fv wire.FlowView
	a.call(t, "flow.create", map[string]any{"file_name": "f.yaml", "start": true, "file_content": "name: f\ncontext: 1\njobs:\n  a: {type: sh, script: 'true'}\n  b: {type: sh, needs: [a], script: 'true'}\n"}, &fv)
	body, err = a.client.Stream(ctx, "/events/flow?context=1&id="+strconv.FormatUint(fv.ID, 10))
	if err != nil {
		t.Fatal(err)
	}
	events = readSSE(t, body)
	if last := events[len(events)-1]; !strings.HasPrefix(last, "end ") || !strings.Contains(last, `"finished"`) {
		t.Fatalf("flow events:\n%s", strings.Join(events, "\n"))
	}
}

func readSSE(t *testing.T, body interface {
	Read([]byte) (int, error)
	Close() error
}) []string {
	t.Helper()
	defer body.Close()
	var out []string
	ev := ""
	sc := bufio.NewScanner(body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			ev = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			out = append(out, ev+" "+strings.TrimPrefix(line, "data: "))
		}
	}
	if len(out) == 0 {
		t.Fatal("no events")
	}
	return out
}
