package wire

// InviteCreateParams asks for a join code (invite.create): the role in
// context Context that the joiner gets, whether it becomes a runner of the
// context, and how long the code holds (a Go duration; "" is 1h, "0" never
// expires).
type InviteCreateParams struct {
	Context uint64 `json:"context"`
	Role    string `json:"role"`
	Runner  bool   `json:"runner,omitempty"`
	Expires string `json:"expires,omitempty"`
}

// InviteView is an invite as the API shows it (never its secret). Code is
// set only in invite.create's answer.
type InviteView struct {
	ID        string `json:"id"`
	Context   uint64 `json:"context"`
	Role      string `json:"role"`
	Runner    bool   `json:"runner,omitempty"`
	State     string `json:"state"` // open, used, revoked, expired
	CreatedAt int64  `json:"created_at"`
	ExpiresAt int64  `json:"expires_at,omitempty"`
	UsedBy    string `json:"used_by,omitempty"`
	UsedAt    int64  `json:"used_at,omitempty"`
	Code      string `json:"code,omitempty"`
}

// InviteRef names one invite (invite.revoke).
type InviteRef struct {
	ID string `json:"id"`
}

// InviteJoinParams joins the agent of Code (invite.join); Name is what this
// agent calls it (default: its host name, as the code carries it).
type InviteJoinParams struct {
	Code string `json:"code"`
	Name string `json:"name,omitempty"`
}

// InviteJoinView is what a join got: a role in the other agent's context.
type InviteJoinView struct {
	Peer    string `json:"peer"`
	Name    string `json:"name"`
	Context uint64 `json:"context"`
	Role    string `json:"role"`
	Runner  string `json:"runner,omitempty"`
	ActorID uint64 `json:"actor_id"`
}
