package rest_test

import (
	"crypto/sha256"
	"encoding/base64"
	"html"
	"io"
	"net/http"
	"regexp"
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

	// Live data unless the page asks for the sandbox's; a link switches.
	if !strings.Contains(page, `"Msgsvc-Livemode":"true"`) || !strings.Contains(page, `href="?livemode=false"`) {
		t.Errorf("the default page is not live data's: %.2000s", page)
	}
	req, _ := http.NewRequest("GET", dev.HTTP.URL+rest.PlaygroundPath+"?livemode=false", nil)
	req.SetBasicAuth("dev", "admin-token")
	if code, sandbox := get(dev, func(r *http.Request) { *r = *req }); code != 200 ||
		!strings.Contains(sandbox, `"Msgsvc-Livemode":"false"`) || !strings.Contains(sandbox, `href="?livemode=true"`) {
		t.Errorf("?livemode=false: %d %.2000s", code, sandbox)
	}

	// Every script and style comes from msgsvc itself, with its integrity.
	if strings.Contains(page, "cdn.") || strings.Contains(page, "https://") {
		t.Errorf("the page loads from elsewhere: %s", page)
	}
	assets := regexp.MustCompile(`(?:src|href)="(/admin/graphql/assets/[^"]+)"\s+integrity="(sha256-[^"]+)"`).FindAllStringSubmatch(page, -1)
	if len(assets) != 4 {
		t.Errorf("%d assets in the page, want 4: %s", len(assets), page)
	}
	for _, a := range assets {
		resp, err := http.Get(dev.HTTP.URL + a[1])
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		sum := sha256.Sum256(b)
		if resp.StatusCode != 200 || "sha256-"+base64.StdEncoding.EncodeToString(sum[:]) != html.UnescapeString(a[2]) {
			t.Errorf("%s: %d, %d bytes not matching %s", a[1], resp.StatusCode, len(b), a[2])
		}
	}

	prod := resttest.New(t) // Playground off, as with MSGSVC_ENV=production
	if code, _ := get(prod, func(r *http.Request) { r.SetBasicAuth("dev", "admin-token") }); code != 404 {
		t.Errorf("production serves the playground: %d", code)
	}
}

// The embedded assets are the npm registry's files at the pinned versions,
// byte for byte: these are the integrity values the registry's tarballs
// (graphiql@4.1.2, react@18.2.0, react-dom@18.2.0) give, and gqlgen's page
// names for the same files on jsDelivr.
func TestGraphiQLAssetsArePinned(t *testing.T) {
	t.Parallel()
	api := resttest.New(t, func(a *resttest.API) { a.Server.Playground = true })
	for name, want := range map[string]string{
		"graphiql.min.js":             "sha256-hnImuor1znlJkD/FOTL3jayfS/xsyNoP04abi8bFJWs=",
		"graphiql.min.css":            "sha256-MEh+B2NdMSpj9kexQNN3QKc8UzMrCXW/Sx/phcpuyIU=",
		"react.production.min.js":     "sha256-S0lp+k7zWUMk2ixteM6HZvu8L9Eh//OVrt+ZfbCpmgY=",
		"react-dom.production.min.js": "sha256-IXWO0ITNDjfnNXIu5POVfqlgYoop36bDzhodR6LW5Pc=",
	} {
		resp, err := http.Get(api.HTTP.URL + rest.PlaygroundPath + "/assets/" + name)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		sum := sha256.Sum256(b)
		if got := "sha256-" + base64.StdEncoding.EncodeToString(sum[:]); resp.StatusCode != 200 || got != want {
			t.Errorf("%s: %d %s, want %s", name, resp.StatusCode, got, want)
		}
	}
	if resp, err := http.Get(api.HTTP.URL + rest.PlaygroundPath + "/assets/LICENSES.txt"); err != nil || resp.StatusCode != 404 {
		t.Errorf("a file outside the assets: %v %v", resp, err)
	}
}
