package graph_test

import (
	"context"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/graph"
)

// recordingQueue is a job queue that takes every kind of task.
type recordingQueue struct{ tasks []string }

func (q *recordingQueue) EventsRecorded(context.Context) error { return nil }
func (q *recordingQueue) FanOutDue(context.Context) error      { return nil }
func (q *recordingQueue) DeliveryDue(context.Context, string, time.Duration) error {
	return nil
}
func (q *recordingQueue) DeliveriesDue(context.Context, []string) error { return nil }
func (q *recordingQueue) RecoveryDue(_ context.Context, id string) error {
	q.tasks = append(q.tasks, "recovery:"+id)
	return nil
}
func (q *recordingQueue) AIReplyDue(_ context.Context, id string) error {
	q.tasks = append(q.tasks, "ai:"+id)
	return nil
}
func (q *recordingQueue) MetaHookStored(_ context.Context, id string) error {
	q.tasks = append(q.tasks, "meta:"+id)
	return nil
}
func (q *recordingQueue) InboundMail(_ context.Context, id string) error {
	q.tasks = append(q.tasks, "mail:"+id)
	return nil
}

// The services are built once: the ones a service calls are the very
// services the Resolver holds, not copies of their own.
func TestServicesAreBuiltOnce(t *testing.T) {
	r := graph.New(graph.Config{Clock: time.Now})
	same := []struct {
		name      string
		got, want any
	}{
		{"AI.Sends", r.AI.Sends, r.Sends},
		{"Conversations.Files", r.Conversations.Files, r.Files},
		{"Sends.Files", r.Sends.Files, r.Files},
		{"Visitors.Files", r.Visitors.Files, r.Files},
		{"Visitors.Inbound", r.Visitors.Inbound, r.Inbound},
		{"MetaHooks.Inbound", r.MetaHooks.Inbound, r.Inbound},
		{"Mail.Inbound", r.Mail.Inbound, r.Inbound},
	}
	for _, s := range same {
		if s.got != s.want {
			t.Errorf("%s is %p, not the Resolver's %p", s.name, s.got, s.want)
		}
	}
	if r.Sends != r.Services.Sends || r.AI != r.Services.AI {
		t.Error("a second read of a service gives another one")
	}
}

// Every queue a service enqueues on is Config.Jobs, typed: none is left
// nil because a type did not match.
func TestEveryServiceEnqueuesOnTheJobQueue(t *testing.T) {
	q := &recordingQueue{}
	r := graph.New(graph.Config{Clock: time.Now, Jobs: q})
	ctx := t.Context()
	for name, enqueue := range map[string]func() error{
		"AI.Jobs":         func() error { return r.AI.Jobs.AIReplyDue(ctx, "conv_1") },
		"MetaHooks.Queue": func() error { return r.MetaHooks.Queue.MetaHookStored(ctx, "hook_1") },
		"Inbox.Queue":     func() error { return r.Inbox.Queue.InboundMail(ctx, "mail_1") },
	} {
		if err := enqueue(); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	slices.Sort(q.tasks)
	if want := []string{"ai:conv_1", "mail:mail_1", "meta:hook_1"}; !slices.Equal(q.tasks, want) {
		t.Errorf("queued %v, want %v", q.tasks, want)
	}
	if r.Webhooks.Jobs != graph.Enqueuer(q) {
		t.Errorf("the webhook service queues on %v, not Config.Jobs", r.Webhooks.Jobs)
	}
}

// The Resolver's own methods are gqlgen's roots and the request's
// loaders; everything else is a service's.
func TestResolverMethodsAreGraphQLs(t *testing.T) {
	allowed := []string{"Conversation", "Mutation", "Query", "Subscription", "WebhookDelivery", "WithLoaders"}
	typ := reflect.TypeFor[*graph.Resolver]()
	for i := range typ.NumMethod() {
		m := typ.Method(i)
		// Methods promoted from the embedded Services are the services'.
		if _, promoted := reflect.TypeFor[*graph.Services]().MethodByName(m.Name); promoted {
			continue
		}
		if !slices.Contains(allowed, m.Name) {
			t.Errorf("Resolver.%s is no GraphQL root; call the service it belongs to", m.Name)
		}
	}
}
