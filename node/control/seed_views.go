package control

import (
	"strconv"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/node/api/wire"
)

// The seed models as the API answers with them when a call uses the seed
// coordinator's params (docs/design.md, "How Hyphae reads the specifications it follows"): the seed's field names with natural
// JSON types (numbers, lists, maps), plus the additions of docs/design.md, "Redis layout".
// A client's typed decoder for the seed models reads them unchanged.

// seedJob shows j the seed's way: dependends are its upstream ids and
// prerequisites the names of external prerequisites. A job of a flow
// stored before kept its upstream ids in prerequisites (and a flow file's
// job its downstream ids in dependends): Upstream reads them from there.
func seedJob(j *model.RunnerJob) *wire.SeedJob {
	prereq, deps := nzs(j.ExternalPrerequisites()), nz(j.Upstream())
	return &wire.SeedJob{ID: j.ID, CallerID: j.CallerID, ContextID: j.ContextID, Script: j.Script,
		ScriptType: j.ScriptType, Timeout: j.Timeout, Retries: j.Retries, EnvVars: nzm(j.EnvVars),
		Result: nzm(j.Result), Prerequisites: prereq, Dependends: deps,
		Status: string(j.Status), CreatedAt: j.CreatedAt, UpdatedAt: j.UpdatedAt,
		Name: j.Name, Runner: j.Runner, Error: j.Error, Attempt: j.Attempt}
}

func seedFlow(f *model.Flow) *wire.SeedFlow {
	return &wire.SeedFlow{ID: f.ID, CallerID: f.CallerID, ContextID: f.ContextID, Jobs: nz(f.Jobs),
		EnvVars: nzm(f.EnvVars), Result: nzm(f.Result), Status: string(f.Status),
		CreatedAt: f.CreatedAt, UpdatedAt: f.UpdatedAt, Name: f.Name, Error: f.Extra["error"]}
}

func seedMessage(m *model.Message) *wire.SeedMessage {
	jobs := make([]*wire.SeedJob, 0, len(m.Job))
	for _, j := range m.Job {
		jobs = append(jobs, seedJob(j))
	}
	return &wire.SeedMessage{ID: m.ID, CallerID: m.CallerID, ContextID: m.ContextID, Message: m.Message,
		MessageType: string(m.MessageType), MessageFormatType: m.MessageFormatType, Timeout: m.Timeout,
		TimeoutAck: m.TimeoutAck, TimeoutResult: m.TimeoutResult, Job: jobs, Logs: nzs(m.Logs),
		Status: string(m.Status), CreatedAt: m.CreatedAt, UpdatedAt: m.UpdatedAt, Dst: m.Dst, Error: m.Error}
}

func seedRunner(r *model.Runner) *wire.SeedRunner {
	return &wire.SeedRunner{ID: r.ID, Pubkey: r.Pubkey, Address: r.Address, Topic: runnerTopic(r), Local: r.Local,
		CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt, ScriptTypes: nzs(r.ScriptTypes), Type: r.Extra["type"]}
}

func seedActor(a *model.Actor) *wire.SeedActor {
	return &wire.SeedActor{ID: a.ID, Pubkey: a.Pubkey, Address: nzs(a.Address), CreatedAt: a.CreatedAt, UpdatedAt: a.UpdatedAt}
}

// runnerTopic is r's topic, runner<id> when the record names none (seed
// 001: "defaults to runner${id}").
func runnerTopic(r *model.Runner) string {
	if r.Topic != "" {
		return r.Topic
	}
	return "runner" + strconv.FormatUint(r.ID, 10)
}

// seedActorOf is seedActor with the actor's reachable addresses (seed
// 001 Actor.address) filled in when its record holds none: the
// multiaddrs the overlay knows for its peer (peerAddrs); not when its
// caller gave address [] (markNoAddress).
func (h *Handlers) seedActorOf(a *model.Actor) *wire.SeedActor {
	v := seedActor(a)
	if len(v.Address) == 0 && a.Extra[addressNone] == "" {
		v.Address = nzs(h.peerAddrs(a.Pubkey))
	}
	return v
}

// peerAddrs are the multiaddrs, each ending in /p2p/<peer ID>, at which
// the agent whose peer ID is pub can be reached as far as this agent
// knows: its own listen addresses, or those its overlay has for the peer
// (nil when none, or pub is no peer ID).
func (h *Handlers) peerAddrs(pub string) []string {
	if h.Overlay == nil || pub == "" {
		return nil
	}
	if pub == h.ID.PeerID().String() {
		return h.listenAddrs()
	}
	pid, err := peer.Decode(pub)
	if err != nil {
		return nil
	}
	known := h.Overlay.Host().Peerstore().Addrs(pid)
	addrs, err := peer.AddrInfoToP2pAddrs(&peer.AddrInfo{ID: pid, Addrs: known})
	if err != nil {
		return nil
	}
	out := make([]string, 0, len(addrs))
	for _, a := range addrs {
		out = append(out, a.String())
	}
	return out
}

func nzm(m map[string]string) map[string]string {
	if m == nil {
		return map[string]string{}
	}
	return m
}
