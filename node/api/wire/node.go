package wire

// InfoView answers node.info and /info.
type InfoView struct {
	Version     string   `json:"version"`
	PeerID      string   `json:"peer_id"`
	AgeRecip    string   `json:"age_recipient"`
	ActorID     uint64   `json:"actor_id"`
	Roles       []string `json:"roles"`
	DataDir     string   `json:"data_dir"`
	Store       string   `json:"store"`
	Persistent  bool     `json:"persistent"`
	Contexts    []uint64 `json:"contexts"`
	ListenAddrs []string `json:"listen_addrs"`
	// MDNS and NATPortMap say whether the overlay runs mDNS discovery
	// and UPnP / NAT-PMP port mapping: what runs, not what the config asks.
	MDNS       bool `json:"mdns"`
	NATPortMap bool `json:"nat_port_map"`
	// MDNSOff says why mDNS, asked for by the config, does not run: the
	// agent started without it (no interface can multicast, as in a
	// container or a network namespace with only loopback).
	MDNSOff     string   `json:"mdns_off,omitempty"`
	ScriptTypes []string `json:"script_types"`
	API         string   `json:"api,omitempty"`
	Socket      string   `json:"socket"`
	// RedisSocket: the store's unix socket, when it is on one (redis-cli -s).
	RedisSocket string `json:"redis_socket,omitempty"`
	UptimeSec   int64  `json:"uptime_seconds"`
	Draining    bool   `json:"draining"`
	// Isolation says how jobs are contained and limited: in cgroups (where,
	// how they are killed, which limits) or in process groups, and why.
	Isolation string `json:"isolation,omitempty"`
	// Containment says whether and how this agent contains jobs of other
	// actors (docs/design.md, "Contained jobs"), or why it cannot and what fixes it.
	Containment string `json:"containment,omitempty"`
}

// PeerView is a row of peer.list (and `hyphae peers --json`).
type PeerView struct {
	PeerID      string   `json:"peer_id"`
	State       string   `json:"state"`
	Roles       []string `json:"roles"`
	ScriptTypes []string `json:"script_types"`
	Load        int64    `json:"load"`
	Capacity    int64    `json:"capacity"`
	LastSeen    int64    `json:"last_seen"`
	FoundVia    string   `json:"found_via"`
	Addrs       []string `json:"addrs"`
	Version     string   `json:"version"`
	Conn        string   `json:"conn,omitempty"` // direct, relayed, or empty: not connected now
	// Host is the host name the peer announces ("" from agents too old
	// to announce one).
	Host string `json:"host"`
	// Breaker is this agent's circuit breaker for the peer (this agent's
	// view; another agent may see the peer differently). Nil when the
	// agent has no bridge.
	Breaker *BreakerView `json:"breaker,omitempty"`
}

// BreakerView is a peer's circuit breaker in peer.list (docs/breakers.md).
type BreakerView struct {
	State     string `json:"state"`                // closed, open or half-open
	Failures  int    `json:"failures"`             // the peer's faults in a row
	OpenedAt  int64  `json:"opened_at"`            // unix seconds it last opened; 0: never
	Until     int64  `json:"until"`                // unix seconds a probe may go, while open; 0 otherwise
	Trips     uint64 `json:"trips"`                // how many times it opened
	LastError string `json:"last_error,omitempty"` // the last fault's reason
}

// PruneParams are node.prune's parameters.
type PruneParams struct {
	Context   uint64 `json:"context,omitempty"`    // 0: every context of the agent
	OlderThan string `json:"older_than,omitempty"` // a duration ("24h", "0s"); "": retention.max_age
	DryRun    bool   `json:"dry_run,omitempty"`    // remove nothing, report what would go
}

// PruneView answers node.prune: what went (or would go), per context and
// in all.
type PruneView struct {
	DryRun    bool          `json:"dry_run"`
	OlderThan string        `json:"older_than"` // the age applied
	Contexts  []PruneCounts `json:"contexts"`
	Total     PruneCounts   `json:"total"`
}

// PruneCounts is what node.prune removed from one context (or, as Total,
// from all of them).
type PruneCounts struct {
	Context    uint64 `json:"context,omitempty"` // 0 in a Total
	Jobs       int    `json:"jobs"`              // jobs removed, a flow's included
	Flows      int    `json:"flows"`             // flows removed
	Messages   int    `json:"messages"`          // messages removed
	MsgIn      int64  `json:"msg_in"`            // entries trimmed from msg_in
	Dirs       int    `json:"dirs"`              // job attempt directories removed
	RedisBytes int64  `json:"redis_bytes"`       // memory the removed keys held (sampled)
	DiskBytes  int64  `json:"disk_bytes"`        // bytes of the removed directories' files
	Error      string `json:"error,omitempty"`
}
