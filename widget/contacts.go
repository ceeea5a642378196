package widget

import (
	"context"
	"log/slog"

	"github.com/msgsvc/msgsvc/repo"
)

// A visitor is given its contact on its first message, so a widget may
// connect before its visitor has one: it is kept under the contact "" and
// each check asks which of those visitors have a contact by now (one
// query, only while such widgets are connected), then serves them under
// it from that check on.

// noContact is the key of the widgets whose visitor has no contact yet.
const noContact = ""

// resolve moves the widgets of visitors that have been given a contact
// under it, and asks for a full check of them.
func (h *Hub) resolve(ctx context.Context) {
	h.mu.Lock()
	delete(h.fresh, noContact) // registered without a contact: nothing to ask
	var ids []string
	for s := range h.subs[noContact] {
		ids = append(ids, s.visitor.ID)
	}
	h.mu.Unlock()
	if len(ids) == 0 {
		return
	}
	found, err := h.Visitors.Contacts(ctx, ids)
	if err != nil {
		slog.Warn("widget: the contacts of new visitors", "err", err)
		return
	}
	contactOf := map[string]string{}
	for _, f := range found {
		contactOf[f.VisitorID] = f.ContactID
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	for s := range h.subs[noContact] {
		c := contactOf[s.visitor.ID]
		if c == "" {
			continue
		}
		v := *s.visitor
		v.ContactID = c
		s.visitor = &v
		delete(h.subs[noContact], s)
		if h.subs[c] == nil {
			h.subs[c] = map[*sub]bool{}
		}
		h.subs[c][s] = true
		h.fresh[c] = true
	}
	if len(h.subs[noContact]) == 0 {
		delete(h.subs, noContact)
	}
}

// visitorOf is the visitor of a connected widget as the hub knows it now
// (with its contact once it has one).
func (h *Hub) visitorOf(s *sub) *repo.Visitor {
	h.mu.Lock()
	defer h.mu.Unlock()
	return s.visitor
}
