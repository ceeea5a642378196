package graph

import (
	"context"

	"github.com/msgsvc/msgsvc/graph/credentials"
	"github.com/msgsvc/msgsvc/graph/instagram"
	"github.com/msgsvc/msgsvc/graph/metahook"
)

// MetaHooks stores and processes the webhooks of /hooks/meta.
func (r *Resolver) MetaHooks() *metahook.Service {
	var queue metahook.Queue
	if q, ok := r.Jobs.(metahook.Queue); ok {
		queue = q
	}
	return &metahook.Service{Store: r.Store, Clock: r.Clock, Events: r.events(), Inbound: r.inbound(),
		Vault: credentials.Vault{Key: r.Seal}, WhatsApp: r.WhatsApp, Instagram: r.instagram(), Queue: queue}
}

// instagram processes Instagram webhook events; the live Instagram adapter
// (channels/instagram) downloads DM attachments.
func (r *Resolver) instagram() *instagram.Service {
	media, _ := r.Adapters["instagram"].(instagram.Downloader)
	return &instagram.Service{Inbound: r.inbound(), Store: r.Store, Events: r.events(), Media: media}
}

// ProcessMetaHook processes one stored webhook (the job of /hooks/meta).
func (r *Resolver) ProcessMetaHook(ctx context.Context, hookID string) error {
	return r.MetaHooks().Process(ctx, hookID)
}

// SweepMetaHooks processes stored webhooks whose job was lost.
func (r *Resolver) SweepMetaHooks(ctx context.Context) error { return r.MetaHooks().SweepHooks(ctx) }

// SyncTemplates refreshes WhatsApp templates and onboarding from Meta
// ("" for every workspace or number).
func (r *Resolver) SyncTemplates(ctx context.Context, workspaceID, accountID string) error {
	return r.MetaHooks().SyncTemplates(ctx, workspaceID, accountID)
}
