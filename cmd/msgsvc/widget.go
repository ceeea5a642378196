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
// workers too), typing goes both ways between agents and visitors, and live
// website sends go to the widget adapter. It returns
// what stops the wake-ups and closes their Redis client.
func wireWebsite(resolver *graph.Resolver, redisOpt *redisconn.Options) (func(), error) {
	rdb := redisOpt.Client()
	waker := widget.NewWaker(widget.Publish{Redis: rdb})
	resolver.CommitListener = waker
	resolver.Typing = widget.Publish{Redis: rdb}
	resolver.VisitorTypingFeed = widget.Publish{Redis: rdb}
	if resolver.Adapters == nil {
		resolver.Adapters = map[string]channels.Adapter{}
	}
	resolver.Adapters["website"] = widget.Adapter{}
	return func() { waker.Close(); rdb.Close() }, nil
}

// widgetAPI starts this serve process's widget hub and returns the visitor
// API it serves; the hub stops with ctx.
func widgetAPI(ctx context.Context, cfg *Config, resolver *graph.Resolver, rdb *redis.Client, limiter *rest.RedisLimiter) *rest.Widget {
	visitors := resolver.VisitorService()
	hub := &widget.Hub{Visitors: visitors, Redis: rdb, Clock: resolver.Clock}
	go hub.Run(ctx)
	return &rest.Widget{Visitors: visitors, Hub: hub, Publish: widget.Publish{Redis: rdb}, Origins: resolver.Store,
		Limiter: limiter, RateLimit: cfg.Live.WidgetRateLimit}
}
