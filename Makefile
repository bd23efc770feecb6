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

.PHONY: all build deps kernel test test-unit test-rootless bench bench-ooc bench-duckdb demo fmt-check tidy-check clean

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
	@cd examples/eval/kubernetes && { $(GO) mod tidy -diff >/dev/null || { $(GO) mod tidy -diff; echo "examples/eval/kubernetes: go.mod or go.sum is not tidy: run go mod tidy there"; exit 1; }; }

# scripts/test.sh: the image builds while the tests compile; then the
# rootful tests that start kernels (-p 1), kernel/image's and the rootless
# ones run at the same time; the last line counts them all.
test: deps build fmt-check tidy-check
	GO=$(GO) BIN=$(BIN) scripts/test.sh

# Only the tests that need no podman and no image.
test-unit:
	$(GO) test -count=1 -short ./...

test-rootless: deps kernel
	scripts/test-rootless.sh

bench: deps kernel
	scripts/bench.sh

bench-ooc: deps kernel
	scripts/bench.sh ooc

# analyst's load + profile against DuckDB's SUMMARIZE on 3,000,000 rows (needs node and npm).
bench-duckdb: deps kernel
	scripts/bench.sh duckdb

demo: kernel
	scripts/demo.sh

clean:
	rm -rf bin out
