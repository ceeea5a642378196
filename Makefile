# make run   - install what is missing, start Postgres and Redis, migrate
#              (creating the database DATABASE_URL names if missing),
#              seed a demo workspace and serve on $(MSGSVC_ADDR).
# make test  - everything CI checks. It installs and configures nothing: the
#              tests use TEST_DATABASE_URL and TEST_REDIS_URL (the local
#              servers by default) or throwaway servers (.ci/test-servers).
# make test-unit - the tests that need no Postgres, Redis or browser
#              (go test -short), in well under a minute.
# make fuzz  - each Go fuzz target for FUZZTIME (default 10s).
# make scaleout - the scale-out run (docs/performance.md), not part of test.
# make bench-widget - the widget sockets on one serve (docs/performance.md).
# make image - the container image (docs/deploy.md).
# make chart-check - helm lint and helm template of deploy/helm/msgsvc.
# make web   - rebuild the web app (web/src → web/dist, committed; needs node
#              and npm). make run and make test use the committed build.

export DATABASE_URL ?= postgres://postgres@127.0.0.1:5432/msgsvc?sslmode=disable
export REDIS_URL ?= redis://127.0.0.1:6379/0
export MSGSVC_ADDR ?= 127.0.0.1:8080
# A fixed development secret, so cursors, file links and webhook signing
# secrets survive restarts; production sets its own (MSGSVC_ENV=production).
export MSGSVC_SECRET ?= msgsvc-development-secret-not-for-production
export MSGSVC_ADMIN_TOKEN ?= msgsvc-development-admin-token
export MSGSVC_SMTP_ADDR ?= 127.0.0.1:2525
# Webhooks to http:// URLs and local addresses, so a receiver on this machine
# works: development only (docs/configuration.md).
export MSGSVC_WEBHOOK_ALLOW_INSECURE ?= true
DEMO_KEY := svc_test_DemoKey0000000000000000000000001

.PHONY: web run test test-unit fuzz bench bench-reads bench-widget scaleout services build lint lint-openapi generate check-generated image chart-check

run: services build
	./bin/msgsvc migrate
	./bin/msgsvc seed --file docs/demo-workspace.json
	@echo
	@echo "Test key: $(DEMO_KEY)"
	@echo "Try:      curl -s -H 'Authorization: Bearer $(DEMO_KEY)' http://$(MSGSVC_ADDR)/v1/channels"
	@echo "Chat:     http://$(MSGSVC_ADDR)/demo (the demo website's widget)"
	@echo "App:      http://$(MSGSVC_ADDR)/app/ - sign in as olivia@demo-shop.test (owner) or alice@demo-shop.test (agent);"
	@echo "          without MSGSVC_SMTP_RELAY the code is in this log, on the line 'no SMTP relay (MSGSVC_SMTP_RELAY): the code is here'"
	@echo "GraphQL:  http://$(MSGSVC_ADDR)/admin/graphql (any user, password $(MSGSVC_ADMIN_TOKEN))"
	@echo "Webhooks: MSGSVC_WEBHOOK_ALLOW_INSECURE=$(MSGSVC_WEBHOOK_ALLOW_INSECURE): http:// and local receivers allowed (development only)"
	@echo
	./bin/msgsvc run

test: lint check-generated chart-check
	.ci/test-servers go test -race -count=1 ./...

# The shared test helpers (repotest, the Redis and browser tests) skip in
# -short mode, saying which server a test needs.
test-unit:
	go test -short ./...

# Go native fuzzing (docs/operations.md): each target for FUZZTIME, one
# worker each (the machine is shared). An input that fails is written to the
# package's testdata/fuzz/<target>/: commit it with the fix, and it runs in
# every make test from then on, like the seed corpus already there.
FUZZTIME ?= 10s
FUZZ_TARGETS := rest:FuzzDecode rest:FuzzQueryParams rest:FuzzRequestBody rest:FuzzQuery \
	rest:FuzzWidgetBody channels/email:FuzzParse
fuzz:
	@for pt in $(FUZZ_TARGETS); do \
		p=$${pt%%:*}; t=$${pt#*:}; \
		echo "fuzz: $$p $$t for $(FUZZTIME)"; \
		.ci/test-servers go test -run '^$$' -fuzz "^$$t$$" -fuzztime $(FUZZTIME) -parallel 1 ./$$p/ || exit 1; \
	done

# The project's benchmarks (docs/performance.md): sends, reads, webhook
# delivery and lists at 10k and 1M conversations (BENCH_LIST_ROWS=10000 for a
# quick run).
bench:
	.ci/test-servers go test -run '^$$' -bench . -benchmem -timeout 60m ./...

# GET /v1/conversations/{id} beside pgbench -M prepared running the same
# statement from as many clients (docs/performance.md); prints the ratio.
# BENCH_READS_CLIENTS (8) and BENCH_READS_SECONDS (5) set the load.
bench-reads:
	.ci/test-servers go test ./rest -run '^$$' -bench '^BenchmarkReadsVsPgbench$$' -benchtime 1x -timeout 10m

# As many widget sockets as one serve's open-files limit allows, dialled by
# child processes, then 200 API replies at 50/s (docs/performance.md, Widget
# sockets). A measurement, so make test skips it.
bench-widget:
	MSGSVC_BENCH_WIDGET_SERVE=1 .ci/test-servers go test ./rest -run '^$$' -bench '^BenchmarkWidgetServe$$' -benchtime 200x -timeout 15m

# The scale-out run (docs/performance.md, The scale-out run): one sandbox send
# load against 1 serve + 1 worker, then 2 serve + 2 worker processes, every
# webhook checked for signature, duplicates, order and loss. A measurement,
# so make test skips it. MSGSVC_SCALEOUT_SECONDS (15), _CONNS (16) and
# _CONVERSATIONS (200) change the load, _ROUNDS (1) repeats it as A B B A …;
# TEST_REDIS_URL picks the Redis database.
scaleout:
	MSGSVC_SCALEOUT=1 .ci/test-servers go test -count=1 -run '^TestScaleOut$$' -v -timeout 30m ./cmd/msgsvc

# Installs PostgreSQL and Redis where missing (apt-get, as root or with
# sudo) and starts them: make run and .ci/run only, never the tests.
services:
	@command -v go >/dev/null || { echo "Go 1.26 or newer is needed: https://go.dev/dl/" >&2; exit 1; }
	@.ci/services

build:
	go build -o bin/msgsvc ./cmd/msgsvc

# The container image (Dockerfile, target prebuilt): the static binary and
# the host's CA certificates go to bin/image/, then podman, buildah or a
# running Docker builds an image FROM scratch, pulling nothing. IMAGE names it.
IMAGE ?= msgsvc:dev
image:
	mkdir -p bin/image
	CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o bin/image/msgsvc ./cmd/msgsvc
	cp /etc/ssl/certs/ca-certificates.crt bin/image/ca-certificates.crt
	@if command -v podman >/dev/null 2>&1; then podman build --target prebuilt -t $(IMAGE) .; \
	elif command -v buildah >/dev/null 2>&1; then buildah bud --target prebuilt -t $(IMAGE) .; \
	elif docker info >/dev/null 2>&1; then docker build --target prebuilt -t $(IMAGE) .; \
	else echo "image: bin/image/ holds the static binary and CA certificates, but no podman, buildah or running Docker is here to build $(IMAGE); install one (apt-get install podman) and run make image again" >&2; exit 1; fi

# helm lint and helm template of the chart, with helm pinned from the Go
# module proxy (not in go.mod); about 15 s once helm is built.
chart-check:
	@.ci/chart-check

# staticcheck, pinned, runs from the Go module proxy, kept out of the
# project's go.mod, with its default checks and no exception.
STATICCHECK := honnef.co/go/tools/cmd/staticcheck@v0.8.2
lint:
	@unformatted=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$unformatted" ]; then echo "gofmt needed: $$unformatted" >&2; exit 1; fi
	go vet ./...
	go run $(STATICCHECK) ./...

# Redocly's strict rules over rest/openapi.json (needs Node.js; npx fetches
# the pinned CLI). Decided exceptions: rest/redocly.yaml.
lint-openapi:
	cd rest && npx --yes @redocly/cli@2.77.0 lint --config redocly.yaml openapi.json

generate:
	go generate ./...

# The web app (docs/app.md): npm ci installs the locked packages, npm run
# build writes web/dist deterministically (commit it; CI rebuilds and fails on
# a difference).
web:
	cd web && npm ci --no-audit --no-fund && npm run build

check-generated:
	@.ci/check-generated
