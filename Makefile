# Conveniences around the project's own commands. The release build is
# scripts/build.sh, which the Dockerfile runs too.

VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
COMMIT  ?= $(shell git rev-parse HEAD 2>/dev/null || echo none)

.PHONY: build test image config

build: ## the static release binary, bin/bot
	VERSION=$(VERSION) COMMIT=$(COMMIT) scripts/build.sh

test: ## what CI runs (start the services first: see README, Development)
	go test ./...

image: ## the container image, built with the same scripts/build.sh
	docker build --build-arg VERSION=$(VERSION) --build-arg COMMIT=$(COMMIT) -t switchboard:$(VERSION) .

config: ## the README's configuration table
	go run ./cmd/bot config
