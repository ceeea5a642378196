package rest_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/msgsvc/msgsvc/rest/resttest"
)

func TestContactsLifecycle(t *testing.T) {
	t.Parallel()
	api := resttest.New(t)
	created := api.Want(api.Do("POST", "/v1/contacts", "test_all", map[string]any{
		"name": "Carla", "email": "Carla@Example.com", "phone": "+1 (555) 010-0020",
	}), 201, "").Data()
	id := created["id"].(string)
	if !strings.HasPrefix(id, "ct_") || created["phone"] != "+15550100020" || created["email"] != "Carla@Example.com" || created["object"] != "contact" {
		t.Fatalf("created %v", created)
	}
	got := api.Want(api.Do("GET", "/v1/contacts/"+id, "test_all", nil), 200, "").Data()
	if !reflect.DeepEqual(got, created) {
		t.Errorf("GET %v\nPOST %v", got, created)
	}
	// Email is unique case-insensitively, phone in E.164; the message names the other contact.
	dup := api.Want(api.Do("POST", "/v1/contacts", "test_all", map[string]any{"email": "carla@example.COM"}), 409, "contact_exists")
	if !strings.Contains(string(dup.Raw), id) {
		t.Errorf("contact_exists does not name %s: %s", id, dup.Raw)
	}
	api.Want(api.Do("POST", "/v1/contacts", "test_all", map[string]any{"phone": "+15550100020"}), 409, "contact_exists")
	// The same address is free in the other mode.
	api.Want(api.Do("POST", "/v1/contacts", "live_all", map[string]any{"email": "carla@example.com"}), 201, "")

	patched := api.Want(api.Do("PATCH", "/v1/contacts/"+id, "test_all", map[string]any{"name": "Carla B", "whatsapp_opt_out": true}), 200, "").Data()
	want := map[string]any{"id": id, "object": "contact", "name": "Carla B", "whatsapp_opt_out": true}
	if !reflect.DeepEqual(patched, want) {
		t.Errorf("PATCH answer %v, want %v", patched, want)
	}
	got = api.Want(api.Do("GET", "/v1/contacts/"+id, "test_all", nil), 200, "").Data()
	if got["name"] != "Carla B" || got["opt_outs"].(map[string]any)["whatsapp"] != true {
		t.Errorf("after PATCH %v", got)
	}
	api.Want(api.Do("PATCH", "/v1/contacts/"+id, "test_all", map[string]any{"email": "olga@customers.test"}), 409, "contact_exists")
	api.Want(api.Do("PATCH", "/v1/contacts/"+id, "test_all", map[string]any{"phone": "555"}), 400, "invalid_phone")

	deleted := api.Want(api.Do("DELETE", "/v1/contacts/"+id, "test_all", nil), 200, "").Data()
	if deleted["id"] != id || deleted["deleted"] != true {
		t.Errorf("DELETE answer %v", deleted)
	}
	api.Want(api.Do("GET", "/v1/contacts/"+id, "test_all", nil), 404, "contact_not_found")
	api.Want(api.Do("DELETE", "/v1/contacts/"+id, "test_all", nil), 404, "contact_not_found")

	var types []string
	for _, e := range api.Events("ws_main") {
		types = append(types, e.Type)
		if e.Type == "contact.updated" {
			if c := e.Envelope["data"].(map[string]any)["changed"]; !reflect.DeepEqual(c, []any{"name", "opt_outs"}) {
				t.Errorf("contact.updated changed %v", c)
			}
		}
	}
	if !reflect.DeepEqual(types, []string{"contact.created", "contact.created", "contact.updated", "contact.deleted"}) {
		t.Errorf("events %v", types)
	}
}

// The HTTP mapping of a refused contact; the contact's rules are tested in
// graph/contact.
func TestContactValidation(t *testing.T) {
	t.Parallel()
	api := resttest.New(t)
	api.Want(api.Do("POST", "/v1/contacts", "test_all", map[string]any{"phone": "5550104477"}), 400, "invalid_phone")
}

func TestContactsNeedAllWebsites(t *testing.T) {
	t.Parallel()
	api := resttest.New(t)
	for _, r := range []*resttest.Response{
		api.Do("GET", "/v1/contacts", "web_main_only", nil),
		api.Do("GET", "/v1/contacts/ct_old", "web_main_only", nil),
		api.Do("POST", "/v1/contacts", "web_main_only", map[string]any{"email": "w@x.test"}),
		api.Do("PATCH", "/v1/contacts/ct_old", "web_main_only", map[string]any{"name": "x"}),
		api.Do("DELETE", "/v1/contacts/ct_old", "web_main_only", nil),
	} {
		api.Want(r, 403, "contacts_need_all_websites")
	}
}

func TestContactFilters(t *testing.T) {
	t.Parallel()
	api := resttest.New(t)
	count := func(query string) int {
		return len(api.Want(api.Do("GET", "/v1/contacts?"+query, "test_all", nil), 200, "").Items())
	}
	if n := count("email=RITA@customers.test"); n != 1 {
		t.Errorf("email filter: %d", n)
	}
	if n := count("phone=%2B1%20555%20000%209002"); n != 1 {
		t.Errorf("phone filter with formatting: %d", n)
	}
	if n := count("limit=100"); n != 4 {
		t.Errorf("sandbox contacts: %d, want 4", n)
	}
	api.Want(api.Do("GET", "/v1/contacts?phone=5550009002", "test_all", nil), 400, "invalid_phone")
	api.Want(api.Do("GET", "/v1/contacts?updated_since=soon", "test_all", nil), 400, "invalid_request")
}
