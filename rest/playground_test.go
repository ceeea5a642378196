package rest_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/msgsvc/msgsvc/rest"
	"github.com/msgsvc/msgsvc/rest/resttest"
)

func TestGraphQLPlaygroundIsForDevelopmentBehindTheAdminToken(t *testing.T) {
	t.Parallel()
	get := func(api *resttest.API, set func(*http.Request)) (int, string) {
		t.Helper()
		req, _ := http.NewRequest("GET", api.HTTP.URL+rest.PlaygroundPath, nil)
		set(req)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}
	dev := resttest.New(t, func(a *resttest.API) { a.Server.Playground = true })
	for name, set := range map[string]func(*http.Request){
		"no token": func(*http.Request) {},
		"a key":    func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+dev.Key("test_all")) },
	} {
		if code, body := get(dev, set); code != 401 || strings.Contains(body, "admin-token") {
			t.Errorf("%s: %d %s", name, code, body)
		}
	}
	code, page := get(dev, func(r *http.Request) { r.SetBasicAuth("dev", "admin-token") })
	if code != 200 || !strings.Contains(page, "graphiql") || !strings.Contains(page, `"/graphql"`) ||
		!strings.Contains(page, "Bearer admin-token") || !strings.Contains(page, "Msgsvc-Workspace") {
		t.Errorf("the playground page: %d %.300s", code, page)
	}

	// The headers it fills in open /graphql.
	r := dev.Do("POST", "/graphql", "", `{"query":"{ __typename }"}`, "Authorization", "Bearer admin-token",
		"Msgsvc-Workspace", "ws_main", "Msgsvc-Livemode", "false")
	if r.Status != 200 || !strings.Contains(string(r.Raw), `"__typename"`) {
		t.Errorf("/graphql with the playground's headers: %d %s", r.Status, r.Raw)
	}

	prod := resttest.New(t) // Playground off, as with MSGSVC_ENV=production
	if code, _ := get(prod, func(r *http.Request) { r.SetBasicAuth("dev", "admin-token") }); code != 404 {
		t.Errorf("production serves the playground: %d", code)
	}
}
