package main

import (
	"context"

	"github.com/msgsvc/msgsvc/channels"
	"github.com/msgsvc/msgsvc/graph"
	"github.com/msgsvc/msgsvc/ops/redisconn"
	"github.com/msgsvc/msgsvc/rest"
	"github.com/msgsvc/msgsvc/widget"
	"github.com/redis/go-redis/v9"
)

// wireWebsite makes website chat part of every role: each commit wakes the
// widget hubs of all serve processes (AI and agent replies are committed by
// workers too), typing goes both ways between agents and visitors, the inbox's presence and notes reach every member, and live
// website sends go to the widget adapter. It returns
// what stops the wake-ups and closes their Redis client.
func wireWebsite(g *graph.Config, redisOpt *redisconn.Options) func() {
	rdb := redisOpt.Client()
	waker := widget.NewWaker(widget.Publish{Redis: rdb})
	g.CommitListener = waker
	g.Typing = widget.Publish{Redis: rdb}
	g.VisitorTypingFeed = widget.Publish{Redis: rdb}
	g.InboxBus = widget.Publish{Redis: rdb}
	if g.Adapters == nil {
		g.Adapters = map[string]channels.Adapter{}
	}
	g.Adapters["website"] = widget.Adapter{}
	return func() { waker.Close(); rdb.Close() }
}

// widgetAPI starts this serve process's widget hub and returns the visitor
// API it serves; the hub stops with ctx.
func widgetAPI(ctx context.Context, cfg *Config, resolver *graph.Resolver, rdb *redis.Client, limiter *rest.RedisLimiter) *rest.Widget {
	visitors := resolver.Visitors
	hub := &widget.Hub{Visitors: visitors, Redis: rdb, Clock: resolver.Clock}
	go hub.Run(ctx)
	return &rest.Widget{Visitors: visitors, Hub: hub, Publish: widget.Publish{Redis: rdb}, Origins: resolver.Store,
		Limiter: limiter, RateLimit: cfg.Live.WidgetRateLimit}
}
