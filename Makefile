# make run   - install what is missing, start Postgres and Redis, migrate,
#              seed a demo workspace and serve on $(MSGSVC_ADDR).
# make test  - everything CI checks.

export DATABASE_URL ?= postgres://postgres@127.0.0.1:5432/msgsvc?sslmode=disable
export REDIS_URL ?= redis://127.0.0.1:6379/0
export MSGSVC_ADDR ?= 127.0.0.1:8080
# A fixed development secret, so cursors, file links and webhook signing
# secrets survive restarts; production sets its own (MSGSVC_ENV=production).
export MSGSVC_SECRET ?= msgsvc-development-secret-not-for-production
export MSGSVC_ADMIN_TOKEN ?= msgsvc-development-admin-token
DEMO_KEY := svc_test_DemoKey0000000000000000000000001

.PHONY: run test services build database lint generate check-generated

run: services build database
	./bin/msgsvc migrate
	./bin/msgsvc seed --file docs/demo-workspace.json
	@echo
	@echo "Test key: $(DEMO_KEY)"
	@echo "Try:      curl -s -H 'Authorization: Bearer $(DEMO_KEY)' http://$(MSGSVC_ADDR)/v1/channels"
	@echo
	./bin/msgsvc run

test: services lint check-generated
	go test -race -count=1 ./...

services:
	@command -v go >/dev/null || { echo "Go 1.26 or newer is needed: https://go.dev/dl/" >&2; exit 1; }
	@.ci/services

build:
	go build -o bin/msgsvc ./cmd/msgsvc

database:
	@psql -h 127.0.0.1 -U postgres -d postgres -Atqc "SELECT 1 FROM pg_database WHERE datname = 'msgsvc'" | grep -q 1 \
		|| psql -h 127.0.0.1 -U postgres -d postgres -qc "CREATE DATABASE msgsvc"

lint:
	@unformatted=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$unformatted" ]; then echo "gofmt needed: $$unformatted" >&2; exit 1; fi
	go vet ./...

generate:
	go generate ./...

check-generated:
	@.ci/check-generated
