package widget

import (
	"context"

	"github.com/msgsvc/msgsvc/channels"
	"github.com/msgsvc/msgsvc/internal/apierr"
)

// Adapter is the website channel's provider: the widget itself. A message
// is accepted (sent) once the send pipeline stores it; the hubs push it to
// the visitor's widgets after the commit, which mark it delivered, and the
// widget's read receipt marks it read. Its provider id is its own id.
type Adapter struct{}

// Send accepts a message to a website visitor.
func (Adapter) Send(_ context.Context, m *channels.Message) (*channels.Receipt, error) {
	if m.To == "" {
		return nil, &channels.Refusal{Code: apierr.NoRecipient, Reason: "The chat has no visitor to write to."}
	}
	return &channels.Receipt{ProviderIDs: []string{m.ID}}, nil
}
