package model

// Member is a person of a workspace (app.md 1).
type Member struct {
	ID     string `json:"id"`
	Name   string `json:"name"`
	Email  string `json:"email"`
	Role   string `json:"role"`
	Active bool   `json:"active"`
}

// MemberSession is one of a member's signed-in sessions.
type MemberSession struct {
	ID         string    `json:"id"`
	CreatedAt  Timestamp `json:"created_at"`
	LastSeenAt Timestamp `json:"last_seen_at"`
	ExpiresAt  Timestamp `json:"expires_at"`
	UserAgent  string    `json:"user_agent"`
	// Current is the session of the request.
	Current bool `json:"current"`
}
