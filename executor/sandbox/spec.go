package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
)

// Mode is how the helper gets the privilege to build the namespaces.
type Mode string

// Modes of containment.
const (
	// ModeRoot: the agent is root; the job runs as an unprivileged uid.
	ModeRoot Mode = "root"
	// ModeUserNS: the agent is not root; a user namespace maps its uid to
	// 0 for the setup, and the job runs in a nested one without power over it.
	ModeUserNS Mode = "userns"
)

// Marker values of the helper's command line and environment.
const (
	initArg = "hyphae-sandbox-init"
	specEnv = "HYPHAE_SANDBOX_SPEC"
)

// Mount kinds of a Step.
const (
	stepTmpfs  = "tmpfs"  // an empty tmpfs on Target (a directory)
	stepNull   = "null"   // /dev/null bound over Target (a file)
	stepExpose = "expose" // Target, cloned before the masks, put back read-only
)

// Step is one mount of the plan.
type Step struct {
	Kind   string `json:"kind"`
	Target string `json:"target"`
}

// Spec is the helper's plan for one job, passed in HYPHAE_SANDBOX_SPEC.
type Spec struct {
	Mode    Mode   `json:"mode"`
	UID     uint32 `json:"uid,omitempty"` // ModeRoot: the job's uid and gid
	GID     uint32 `json:"gid,omitempty"`
	Dir     string `json:"dir"`             // the job directory, writable, at its own path
	Steps   []Step `json:"steps,omitempty"` // masks and exposures, in order
	NoNet   bool   `json:"no_net,omitempty"`
	Program string `json:"program"` // absolute path of the job's program
	Probe   bool   `json:"probe,omitempty"`
}

// errSpec marks a plan the helper cannot use.
var errSpec = errors.New("sandbox: bad spec")

func decodeSpec(s string) (*Spec, error) {
	var sp Spec
	if err := json.Unmarshal([]byte(s), &sp); err != nil {
		return nil, fmt.Errorf("%w: %v", errSpec, err)
	}
	if sp.Mode != ModeRoot && sp.Mode != ModeUserNS {
		return nil, fmt.Errorf("%w: mode %q", errSpec, sp.Mode)
	}
	if sp.Dir == "" || sp.Dir[0] != '/' || (!sp.Probe && (sp.Program == "" || sp.Program[0] != '/')) {
		return nil, fmt.Errorf("%w: dir and program must be absolute", errSpec)
	}
	if sp.Mode == ModeRoot && sp.UID == 0 {
		return nil, fmt.Errorf("%w: uid 0", errSpec)
	}
	for _, st := range sp.Steps {
		if st.Target == "" || st.Target[0] != '/' {
			return nil, fmt.Errorf("%w: step target %q", errSpec, st.Target)
		}
		switch st.Kind {
		case stepTmpfs, stepNull, stepExpose:
		default:
			return nil, fmt.Errorf("%w: step kind %q", errSpec, st.Kind)
		}
	}
	return &sp, nil
}
