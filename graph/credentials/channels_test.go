package credentials_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/graph/auth"
	"github.com/msgsvc/msgsvc/graph/credentials"
	"github.com/msgsvc/msgsvc/repo"
)

// channelStore answers a fixed workspace and records the scopes it was
// asked with.
type channelStore struct {
	scopes []repo.Scope
}

func (s *channelStore) Websites(_ context.Context, sc repo.Scope) ([]repo.Website, error) {
	s.scopes = append(s.scopes, sc)
	return []repo.Website{{ID: "web_1", Name: "Shop", Domains: []string{"shop.test"}}}, nil
}

func (s *channelStore) Accounts(_ context.Context, sc repo.Scope, channel string) ([]repo.Account, error) {
	s.scopes = append(s.scopes, sc)
	return []repo.Account{
		{ID: "wa_1", Channel: "whatsapp", PhoneNumber: "+15550001", Status: "connected"},
		{ID: "ig_1", Channel: "instagram", Username: "shop", Status: "connected"},
		{ID: "em_1", Channel: "email", Address: "hi@shop.test", ForwardingActive: true},
		{ID: "x_1", Channel: "fax"},
	}, nil
}

func (s *channelStore) AccountChecks(context.Context, string) (map[string]repo.AccountChecks, error) {
	failed := "131031"
	at := time.Date(2026, 10, 15, 12, 0, 0, 0, time.UTC)
	return map[string]repo.AccountChecks{
		"wa_1": {Subscription: &repo.AccountCheck{Status: "ok", At: at}, TemplateSync: &repo.AccountCheck{Status: "failed", Error: &failed, At: at}},
	}, nil
}

// The list is the caller's scope, by channel, each account with its last
// checks; a channel the API does not know is left out.
func TestChannelsListByChannel(t *testing.T) {
	store := &channelStore{}
	ctx := auth.WithActor(context.Background(), &auth.Actor{WorkspaceID: "ws_1", Livemode: true, WebsiteIDs: []string{"web_1"}})
	got, err := (&credentials.Channels{Store: store}).List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range store.scopes {
		if s.WorkspaceID != "ws_1" || !slices.Equal(s.WebsiteIDs, []string{"web_1"}) {
			t.Errorf("read with scope %+v, not the caller's", s)
		}
	}
	if len(got.Websites) != 1 || got.Websites[0].ID != "web_1" || !slices.Equal(got.Websites[0].Domains, []string{"shop.test"}) {
		t.Errorf("websites %+v", got.Websites)
	}
	if len(got.Whatsapp) != 1 || got.Whatsapp[0].PhoneNumber != "+15550001" {
		t.Fatalf("whatsapp %+v", got.Whatsapp)
	}
	wa := got.Whatsapp[0]
	if wa.Subscription == nil || wa.Subscription.Status != "ok" {
		t.Errorf("subscription check %+v, want ok", wa.Subscription)
	}
	if wa.TemplateSync == nil || wa.TemplateSync.Status != "failed" || wa.TemplateSync.Error == nil || *wa.TemplateSync.Error != "131031" {
		t.Errorf("template sync check %+v, want failed with 131031", wa.TemplateSync)
	}
	if len(got.Instagram) != 1 || got.Instagram[0].Username != "shop" || got.Instagram[0].Subscription != nil {
		t.Errorf("instagram %+v, want shop with no check", got.Instagram)
	}
	if len(got.Email) != 1 || got.Email[0].Address != "hi@shop.test" || !got.Email[0].ForwardingActive {
		t.Errorf("email %+v", got.Email)
	}
}
