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

# The rootful tests and the rootless ones (scripts/test-rootless.sh, as an
# unprivileged user) run at the same time: their sandboxes run as different
# host users, with podman stores, containers and process limits of their
# own, and most of their time is spent waiting on containers. Within the
# rootful run, -p 1: kernel tests of different packages share the sandbox
# uid, whose process rlimit the fork-bomb tests fill, and `kernel prune`
# tests see every kernel container of the user. testsum prints failures
# whole, the tests skipped for missing data (a clone without ../shared),
# each package's time and the counts; the last line sums both runs.
# The kernel image builds (minutes, from nothing) while the tests compile.
test: deps build fmt-check tidy-check
	@rm -rf out/test && mkdir -p out/test
	@echo "make test: building the kernel image (log: out/test/kernel-build.log) while the tests compile"; \
	$(BIN) kernel build >out/test/kernel-build.log 2>&1 & build=$$!; \
	$(GO) vet ./... && $(GO) test -c -o out/test/bin/ ./... >/dev/null; compiled=$$?; \
	wait $$build || { cat out/test/kernel-build.log; echo "make test: the kernel image did not build"; exit 1; }; \
	tail -1 out/test/kernel-build.log; [ $$compiled -eq 0 ]
	@export ANALYST_TEST_ROOTLESS_USER=$$(scripts/rootless-user.sh); \
	scripts/test-rootless.sh out/test >out/test/rootless.log 2>&1 & rootless=$$!; \
	set -o pipefail; \
	$(GO) test -json -count=1 -p 1 -timeout 40m ./... | \
		$(GO) run ./internal/tools/testsum -counts out/test/rootful.json; rootful=$$?; \
	echo "make test: the rootful tests ended ($$rootful); waiting for the rootless ones"; \
	wait $$rootless; rootless=$$?; cat out/test/rootless.log; \
	$(GO) run ./internal/tools/testsum -total out/test/*.json && [ $$rootful -eq 0 ] && [ $$rootless -eq 0 ]

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
