package main

import (
	"context"
	"errors"
	"flag"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/msgsvc/msgsvc/ops/listen"
)

// listenCmd is `msgsvc listen --api URL --key KEY --forward URL [--events
// a,b]` (see ops/listen). It needs none of the server's configuration.
func listenCmd(args []string, out io.Writer) error {
	fs := flag.NewFlagSet("listen", flag.ContinueOnError)
	api := fs.String("api", "http://127.0.0.1:8080", "base URL of msgsvc")
	key := fs.String("key", os.Getenv("MSGSVC_KEY"), "API key with webhooks:manage (or MSGSVC_KEY)")
	forward := fs.String("forward", "", "local URL each event is POSTed to")
	events := fs.String("events", "", "comma-separated event types (default: all)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *key == "" || *forward == "" {
		return errors.New("listen needs --key KEY (or MSGSVC_KEY) and --forward URL")
	}
	var types []string
	for _, t := range strings.Split(*events, ",") {
		if t = strings.TrimSpace(t); t != "" {
			types = append(types, t)
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return listen.Run(ctx, listen.Options{API: *api, Key: *key, Forward: *forward, Events: types, Out: out})
}
