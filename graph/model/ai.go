package model

// Agent is a team member with her routing load.
type Agent struct {
	ID                string `json:"id"`
	Name              string `json:"name"`
	Email             string `json:"email"`
	Active            bool   `json:"active"`
	MaxOpen           int    `json:"max_open"`
	OpenConversations int    `json:"open_conversations"`
}

// KnowledgeEntry is a question and answer the AI may give.
type KnowledgeEntry struct {
	ID        string    `json:"id"`
	Question  string    `json:"question"`
	Answer    string    `json:"answer"`
	CreatedAt Timestamp `json:"created_at"`
	UpdatedAt Timestamp `json:"updated_at"`
}

// KnowledgeEntryInput creates or replaces a knowledge entry.
type KnowledgeEntryInput struct {
	Question string `json:"question"`
	Answer   string `json:"answer"`
}
