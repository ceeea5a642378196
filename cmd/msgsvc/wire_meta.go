package main

import (
	"fmt"
	"os"
	"time"

	"github.com/msgsvc/msgsvc/channels"
	"github.com/msgsvc/msgsvc/channels/whatsapp"
	"github.com/msgsvc/msgsvc/graph"
	"github.com/msgsvc/msgsvc/graph/send"
	"github.com/msgsvc/msgsvc/jobs"
	"github.com/msgsvc/msgsvc/repo"
)

// wireMeta gives the services the WhatsApp Cloud API adapter on
// MSGSVC_META_GRAPH_URL (with appsecret_proof when
// MSGSVC_META_APPSECRET_PROOF is on), the provider timeout, and the template refresh
// queue, and the pacer of each number's sends when MSGSVC_WHATSAPP_PACE
// sets one.
func wireMeta(r *graph.Config, cfg *Config, client *jobs.Client) {
	mc := metaConfig(cfg.Live)
	if cfg.Live.MetaAppSecretProof {
		mc.AppSecret = cfg.Live.MetaAppSecret
	}
	wa := whatsapp.New(mc)
	if r.Adapters == nil {
		r.Adapters = map[string]channels.Adapter{}
	}
	r.Adapters["whatsapp"] = wa
	r.WhatsApp = wa
	r.Refresher = client
	if cfg.Live.WhatsAppPace > 0 {
		r.Pacer = &send.Pacer{Rate: cfg.Live.WhatsAppPace, Clock: r.Clock}
	}
}

// campaign is the worker's pacer of queued messages (docs/api.md,
// Pacing): a WhatsApp number's rate from its throughput tier at Meta,
// MSGSVC_WHATSAPP_THROUGHPUT when Meta names none.
func campaign(cfg *Config, store *repo.Store, svc *graph.Services) *send.Campaign {
	mc := metaConfig(cfg.Live)
	if cfg.Live.MetaAppSecretProof {
		mc.AppSecret = cfg.Live.MetaAppSecret
	}
	host, _ := os.Hostname()
	return &send.Campaign{Sends: svc.Sends, Store: store, Owner: fmt.Sprintf("%s/%d/%s", host, os.Getpid(), repo.NewID("", time.Now())),
		Rates: send.Rates{WhatsApp: cfg.Live.WhatsAppThroughput, Instagram: cfg.Live.InstagramSendRate,
			Email: cfg.Live.EmailSendRate, Website: 1000, Tier: whatsapp.New(mc)}}
}
