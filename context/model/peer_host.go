package model

// ExtraHost, on a peer table row: the host name the peer announces in its
// presence records (absent for agents too old to announce one).
const ExtraHost = "host"

// PeerHost is the host name peer p announces ("" when unknown).
func PeerHost(p *Peer) string { return p.Extra[ExtraHost] }
