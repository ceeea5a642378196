package webhook

import (
	"context"
	"encoding/json"

	"github.com/msgsvc/msgsvc/graph/auth"
	"github.com/msgsvc/msgsvc/graph/model"
	"github.com/msgsvc/msgsvc/graph/view"
	"github.com/msgsvc/msgsvc/internal/apierr"
	"github.com/msgsvc/msgsvc/repo"
)

// Event reads one event of the caller's. An event outside the key, or past
// retention (whether or not the purge has run yet), is not found.
func (s *Service) Event(ctx context.Context, id string) (*model.Event, error) {
	a, err := auth.From(ctx)
	if err != nil {
		return nil, err
	}
	e, err := s.Store.Event(ctx, a.Scope(), id)
	if err == nil && (!a.AllowsEvent(e.Channel, e.WebsiteID) || s.Expired(e.CreatedAt)) {
		err = repo.ErrNotFound
	}
	if err != nil {
		return nil, view.NotFound(err, apierr.EventNotFound, "event", id)
	}
	var out model.Event
	return &out, json.Unmarshal(e.Envelope, &out)
}
