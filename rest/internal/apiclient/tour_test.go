package apiclient_test

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"

	"github.com/oapi-codegen/nullable"

	"github.com/msgsvc/msgsvc/graph/seed"
	"github.com/msgsvc/msgsvc/repo/repotest"
	"github.com/msgsvc/msgsvc/rest/internal/apiclient"
	"github.com/msgsvc/msgsvc/rest/resttest"
)

func TestMain(m *testing.M) { repotest.Main(m) }

// demoKey is the sandbox key of docs/demo-workspace.json the README uses.
const demoKey = "svc_test_DemoKey0000000000000000000000001"

func ptr[T any](v T) *T { return &v }

// want fails the test unless a call succeeded with the status.
func want(t *testing.T, what string, status int, resp *http.Response, err error, body []byte) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if resp.StatusCode != status {
		t.Fatalf("%s: %d, want %d: %s", what, resp.StatusCode, status, body)
	}
}

// TestReadmeTour drives the README's two-minute tour through the generated
// client, over the demo workspace, every answer checked against
// rest/openapi.json by resttest.
func TestReadmeTour(t *testing.T) {
	api := resttest.New(t, func(a *resttest.API) {
		_, file, _, _ := runtime.Caller(0)
		f, err := os.Open(filepath.Join(filepath.Dir(file), "..", "..", "..", "docs", "demo-workspace.json"))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		fixture, err := seed.ParseFixture(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := (&seed.Seeder{Store: a.Store, Clock: a.Clock.Now}).Seed(t.Context(), fixture); err != nil {
			t.Fatal(err)
		}
	})
	c, err := apiclient.NewClientWithResponses(api.HTTP.URL, apiclient.WithRequestEditorFn(
		func(_ context.Context, r *http.Request) error {
			r.Header.Set("Authorization", "Bearer "+demoKey)
			return nil
		}))
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()

	channels, err := c.ListChannelsWithResponse(ctx)
	want(t, "channels", 200, channels.HTTPResponse, err, channels.Body)
	if len(channels.JSON200.Data.Whatsapp) == 0 {
		t.Fatalf("the demo key sees no WhatsApp number: %s", channels.Body)
	}

	in, err := c.SimulateInboundWithResponse(ctx, nil, apiclient.SimulateInboundJSONRequestBody{
		Channel: "whatsapp", From: "+15550003333", Name: ptr("Dana"), Text: "Hello!"})
	want(t, "inbound", 201, in.HTTPResponse, err, in.Body)
	conv := in.JSON201.Data.Conversation.Id

	list, err := c.ListConversationsWithResponse(ctx, &apiclient.ListConversationsParams{
		Channel: ptr(apiclient.ListConversationsParamsChannel("whatsapp")), Limit: ptr(5)})
	want(t, "conversations", 200, list.HTTPResponse, err, list.Body)
	if !slices.ContainsFunc(list.JSON200.Data.Items, func(c apiclient.Conversation) bool { return c.Id == conv }) {
		t.Fatalf("conversation %s not listed: %s", conv, list.Body)
	}
	msgs, err := c.ListConversationMessagesWithResponse(ctx, conv, nil)
	want(t, "messages", 200, msgs.HTTPResponse, err, msgs.Body)

	var reply apiclient.SendMessageInput
	if err := reply.FromReplyMessageInput(apiclient.ReplyMessageInput{ConversationId: conv, Text: ptr("Hi Dana, how can we help?")}); err != nil {
		t.Fatal(err)
	}
	sent, err := c.SendMessageWithResponse(ctx, &apiclient.SendMessageParams{IdempotencyKey: ptr("reply-1")}, reply)
	want(t, "reply", 201, sent.HTTPResponse, err, sent.Body)
	got, err := c.GetMessageWithResponse(ctx, sent.JSON201.Data.Id)
	want(t, "message", 200, got.HTTPResponse, err, got.Body)
	if got.JSON200.Data.Status != "sent" {
		t.Errorf("reply status %q, want sent", got.JSON200.Data.Status)
	}

	window, err := c.GetMessagingWindowWithResponse(ctx, &apiclient.GetMessagingWindowParams{ConversationId: ptr("conv_demo_bob")})
	want(t, "messaging window", 200, window.HTTPResponse, err, window.Body)
	var tmpl apiclient.SendMessageInput
	if err := tmpl.FromReplyMessageInput(apiclient.ReplyMessageInput{ConversationId: "conv_demo_bob",
		Template: &apiclient.TemplateInput{Name: "order_update", Language: "en_US", Parameters: &[]string{"A-1001"}}}); err != nil {
		t.Fatal(err)
	}
	sentTmpl, err := c.SendMessageWithResponse(ctx, nil, tmpl)
	want(t, "template", 201, sentTmpl.HTTPResponse, err, sentTmpl.Body)

	patched, err := c.UpdateConversationWithResponse(ctx, conv, apiclient.UpdateConversationJSONRequestBody{
		Mode: ptr(apiclient.UpdateConversationJSONBodyMode("human")), Tags: &[]string{"vip"},
		AssignedAgentId: ptr(nullable.NewNullableWithValue("usr_demo_alice"))})
	want(t, "patch conversation", 200, patched.HTTPResponse, err, patched.Body)
	if d := patched.JSON200.Data; d.Mode == "ai" || !slices.Equal(d.Tags, []string{"vip"}) ||
		d.AssignedAgentId == nil || *d.AssignedAgentId != "usr_demo_alice" {
		t.Errorf("patched conversation %s", patched.Body)
	}
	// An explicit null unassigns; a field left out leaves the agent alone.
	kept, err := c.UpdateConversationWithResponse(ctx, conv, apiclient.UpdateConversationJSONRequestBody{Tags: &[]string{"vip"}})
	want(t, "patch without the agent", 200, kept.HTTPResponse, err, kept.Body)
	if d := kept.JSON200.Data; d.AssignedAgentId == nil || *d.AssignedAgentId != "usr_demo_alice" {
		t.Errorf("a patch without assigned_agent_id changed the agent: %s", kept.Body)
	}
	unassigned, err := c.UpdateConversationWithResponse(ctx, conv, apiclient.UpdateConversationJSONRequestBody{
		AssignedAgentId: ptr(nullable.NewNullNullable[string]())})
	want(t, "unassign", 200, unassigned.HTTPResponse, err, unassigned.Body)
	if d := unassigned.JSON200.Data; d.AssignedAgentId != nil {
		t.Errorf("assigned_agent_id null did not unassign: %s", unassigned.Body)
	}

	contact, err := c.CreateContactWithResponse(ctx, nil, apiclient.CreateContactJSONRequestBody{
		Name: ptr("Erin"), Email: ptr("erin@example.com"), Phone: ptr("+15550004444")})
	want(t, "create contact", 201, contact.HTTPResponse, err, contact.Body)
	found, err := c.ListContactsWithResponse(ctx, &apiclient.ListContactsParams{Email: ptr("ERIN@example.com")})
	want(t, "find contact", 200, found.HTTPResponse, err, found.Body)
	if len(found.JSON200.Data.Items) != 1 {
		t.Errorf("contacts by email: %s", found.Body)
	}

	usage, err := c.GetUsageWithResponse(ctx)
	want(t, "usage", 200, usage.HTTPResponse, err, usage.Body)
	if usage.JSON200.Data.MessagesLimit != 10000 {
		t.Errorf("usage %s: want the demo workspace's limit of 10000", usage.Body)
	}
}
