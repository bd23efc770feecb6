# analyst: the two commands a fresh Debian machine needs are `make demo` (the
# main job) and `make test`. Both install what they need first.

SHELL   := /bin/bash
GO      ?= go
BIN     := bin/analyst
PKG     := github.com/analyst-cli/analyst
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -X $(PKG)/cmd.Version=$(VERSION)

# Root keeps the kernel image in /var/cache/analyst, where the unprivileged
# user of the rootless tests can read it; other users keep it in their own
# cache folder (analyst's default).
ifeq ($(shell id -u),0)
export ANALYST_CACHE_DIR ?= /var/cache/analyst
endif

.PHONY: all build deps kernel test test-unit test-rootless bench bench-ooc demo fmt-check tidy-check clean

all: build

build:
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN) .

deps:
	scripts/install-deps.sh

kernel: deps build
	$(BIN) kernel build

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt would change: $$out"; exit 1; fi

tidy-check:
	@$(GO) mod tidy -diff >/dev/null || { $(GO) mod tidy -diff; echo "go.mod or go.sum is not tidy: run go mod tidy"; exit 1; }

# -p 1: kernel tests of different packages share the sandbox uid, whose
# process rlimit the fork-bomb tests fill, and `kernel prune` tests see
# every kernel container of the user. testsum prints failures whole, the
# tests skipped for missing data (a clone without ../shared) and the counts.
test: deps kernel fmt-check tidy-check
	$(GO) vet ./...
	@rm -rf out/test && mkdir -p out/test
	set -o pipefail; ANALYST_TEST_ROOTLESS_USER=$$(scripts/rootless-user.sh) $(GO) test -json -count=1 -p 1 -timeout 40m ./... | $(GO) run ./internal/tools/testsum -counts out/test/rootful.json
	scripts/test-rootless.sh out/test
	@$(GO) run ./internal/tools/testsum -total out/test/*.json

# Only the tests that need no podman and no image.
test-unit:
	$(GO) test -count=1 -short ./...

test-rootless: deps kernel
	scripts/test-rootless.sh

bench: deps kernel
	scripts/bench.sh

bench-ooc: deps kernel
	scripts/bench.sh ooc

demo: kernel
	scripts/demo.sh

clean:
	rm -rf bin out
