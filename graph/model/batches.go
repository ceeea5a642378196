package model

// MessageBatch is a batch of queued sends (schema/batches.graphqls).
type MessageBatch struct {
	ID        string             `json:"id"`
	Object    string             `json:"object"`
	Total     int                `json:"total"`
	Refused   int                `json:"refused"`
	Counts    MessageBatchCounts `json:"counts"`
	Done      bool               `json:"done"`
	CreatedAt Timestamp          `json:"created_at"`
}

// MessageBatchCounts are a batch's messages by status.
type MessageBatchCounts struct {
	Queued    int `json:"queued"`
	Sending   int `json:"sending"`
	Sent      int `json:"sent"`
	Delivered int `json:"delivered"`
	Read      int `json:"read"`
	Failed    int `json:"failed"`
}
