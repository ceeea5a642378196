package webhook

// EventBody is the JSON, on one line, that a (full, not metadata-only)
// endpoint receives for a stored envelope; GET /v1/events/stream and
// `msgsvc listen` send the same bytes.
func EventBody(stored []byte) ([]byte, error) { return webhookBody(stored, false) }
