# Conveniences around the project's own commands. The release build is
# scripts/build.sh, which the Dockerfile runs too.

VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
COMMIT  ?= $(shell git rev-parse HEAD 2>/dev/null || echo none)

.PHONY: build test bench bench-quick image config

build: ## the static release binary, bin/switchboard
	VERSION=$(VERSION) COMMIT=$(COMMIT) scripts/build.sh

test: ## what CI runs (start the services first: see docs/development.md)
	go test ./...

# The benchmarks of bench/ (see bench/doc.go): a table on stdout and
# bench/results.json. With TEST_DATABASE_URL set (eval "$$(scripts/services.sh env)")
# they include PostgreSQL.
BENCH = go test ./bench -run '^$$' -bench '$(or $(RUN),.)' -benchtime 1x -count 1 -timeout 30m

bench: ## the benchmarks, about 3 minutes (RUN=CriticalPath for one)
	$(BENCH) -args -command "make bench"

bench-quick: ## small workloads and a 20 ms model: checks the harness in seconds, not for figures
	$(BENCH) -short -args -command "make bench-quick"

image: ## the container image, built with the same scripts/build.sh
	docker build --build-arg VERSION=$(VERSION) --build-arg COMMIT=$(COMMIT) -t switchboard:$(VERSION) .

config: ## the README's configuration table
	go run ./cmd/bot config
