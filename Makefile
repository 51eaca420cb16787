# immutable-gen — developer entry points. Every target is a plain go command,
# so the README's quick start works without make too.

GO ?= go

.PHONY: all build example test golden lint fuzz bench ci

all: build test

## build: the CLI, as the contract says: go build ./cmd/immutable-gen
build:
	$(GO) build -o bin/immutable-gen ./cmd/immutable-gen

## example: regenerate the bundled example's deep-copy code and CRD
example:
	cd examples && $(GO) generate ./...

## test: the whole default test suite (what CI runs)
test:
	$(GO) test ./...

## golden: rewrite every golden file under testdata/golden; review the diff
golden:
	$(GO) test ./... -update

## lint: gofmt, go vet, staticcheck
lint:
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); exit 1; }
	$(GO) vet ./...
	$(GO) run honnef.co/go/tools/cmd/staticcheck@v0.8.2 ./...

## fuzz: run each fuzz target for FUZZTIME (default 30s)
FUZZTIME ?= 30s
fuzz:
	@for pkg in $$($(GO) list ./...); do \
	  for f in $$($(GO) test -list 'Fuzz.*' $$pkg | grep '^Fuzz'); do \
	    echo "== $$pkg $$f"; $(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) $$pkg || exit 1; \
	  done; \
	done

## bench: benchmarks recorded in BENCHMARKS.md
bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

## ci: what .ci/run runs
ci:
	bash .ci/run
