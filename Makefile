# immutable-gen — developer entry points. Every target is a plain go command,
# so the README's quick start works without make too.

GO ?= go

.PHONY: all build example test golden lint fuzz bench ci e2e

all: build test

## build: the CLI, as the contract says: go build ./cmd/immutable-gen (one binary, every command in process)
build:
	$(GO) build -o bin/immutable-gen ./cmd/immutable-gen

## example: regenerate the bundled example's deep-copy code and CRD
example:
	cd examples && $(GO) generate ./...

## test: the README's `go test ./...`: the root module's tests, the long proofs at a sample size (docs/testing.md, which has its times)
test:
	$(GO) test ./...

## RUNTIME_MODULES: the nested library modules (internal/modules checks this list against the tree)
RUNTIME_MODULES = runtime runtime/admission runtime/webhook

## test-modules: go vet and go test in each nested library module, against its floors (Go 1.23, k8s.io v0.31, controller-runtime v0.19)
.PHONY: test-modules
test-modules:
	for m in $(RUNTIME_MODULES); do (cd $$m && GOWORK=off GOFLAGS=-mod=readonly GOTOOLCHAIN=local $(GO) vet ./... && GOWORK=off GOFLAGS=-mod=readonly GOTOOLCHAIN=local $(GO) test ./...) || exit 1; done

## test-proofs: the root module's proofs at full size (IMMUTABLE_GEN_PROOFS=full): the long ones (migrate's whole-pipeline proofs), and the scaled ones (the validators', lint's and whendiff's differentials, ...); only PROOF_TESTS, which the default run does not run at this size (docs/testing.md)
.PHONY: test-proofs
test-proofs:
	IMMUTABLE_GEN_PROOFS=full $(GO) test -run '^($(subst $(space),|,$(strip $(PROOF_TESTS))))$$' $(PROOF_PACKAGES)

empty :=
space := $(empty) $(empty)

## PROOF_PACKAGES, PROOF_TESTS: the root packages whose tests read IMMUTABLE_GEN_PROOFS, and those tests (internal/proofsize checks both lists against the tests)
PROOF_PACKAGES = ./cmd/immutable-gen ./internal/whendiff ./lint ./migrate ./validators
PROOF_TESTS = TestAcceptRefusals TestDifferential TestDifferentialCatchesWrongConditions TestDifferentialWhen TestDropInForControllerGen TestExample TestLoweredRule TestMigrateGolden TestMigrateWrites TestOmitZeroDifferential TestPlan TestRefusedMarkerLeft TestSeeds TestShapes TestSoundByConstruction

## test-all: test, test-modules, test-proofs and every e2e step, as .ci/run runs them (ci also checks formatting, vet, staticcheck and the example)
.PHONY: test-all
test-all: test test-modules test-proofs e2e e2e-lintcorpus
	cd bench/validators && $(GO) test ./... -count=1

## e2e: the generated CEL CRDs on a real, in-process API server (nested module e2e/)
e2e:
	cd e2e && $(GO) test ./... -count=1
	cd e2e/genericapiserver && $(GO) test ./... -count=1
	bash e2e/kubeapiserver/binaries/build.sh
	cd e2e/kubeapiserver && $(GO) test ./... -count=1 -timeout 20m

.PHONY: e2e-admission e2e-webhook

## e2e-admission: the ImmutableFields admission plugin in an in-process generic API server (nested module e2e/genericapiserver)
e2e-admission:
	cd e2e/genericapiserver && $(GO) test ./... -count=1

## e2e-webhook: the webhook behind a real kube-apiserver under envtest; builds kube-apiserver and etcd once into e2e/kubeapiserver/bin
e2e-webhook:
	bash e2e/kubeapiserver/binaries/build.sh
	cd e2e/kubeapiserver && $(GO) test ./... -count=1 -timeout 20m

## golden: rewrite every golden file under testdata/golden, the sample's and the full size's (migrate's report.txt); review the diff
golden:
	$(GO) test ./... -update
	IMMUTABLE_GEN_PROOFS=full $(GO) test ./cmd/immutable-gen -run '^TestMigrateGolden$$' -update

## lint: gofmt, go vet, staticcheck
lint:
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); exit 1; }
	$(GO) vet ./...
	$(GO) run honnef.co/go/tools/cmd/staticcheck@v0.8.2 ./...
	for m in $(RUNTIME_MODULES); do (cd $$m && $(GO) run honnef.co/go/tools/cmd/staticcheck@v0.8.2 ./...) || exit 1; done

## fuzz: run each fuzz target for FUZZTIME (default 30s), of the root module and of the runtime modules
FUZZTIME ?= 30s
fuzz:
	@for mod in . $(RUNTIME_MODULES); do \
	  for pkg in $$(cd $$mod && $(GO) list ./...); do \
	    for f in $$(cd $$mod && $(GO) test -list 'Fuzz.*' $$pkg | grep '^Fuzz'); do \
	      echo "== $$pkg $$f"; (cd $$mod && $(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) $$pkg) || exit 1; \
	    done; \
	  done; \
	done

## bench: benchmarks recorded in BENCHMARKS.md
bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

## bench-gen: immutable-gen against controller-gen v0.23.0 on Gateway API v1.6.3, as is and with six +immutable markers added, and on JobSet v0.10.1 with +immutable where its hand rules are (cache off and warm) (nested module bench/gen; needs the Go module proxy): whole commands, interleaved, wall/CPU/peak RSS (BENCHMARKS.md)
.PHONY: bench-gen
BENCH_GEN_ROUNDS ?= 10
bench-gen:
	cd bench/gen && $(GO) run . -n $(BENCH_GEN_ROUNDS)

## ci: what .ci/run runs
ci:
	bash .ci/run

## e2e-lintcorpus: lint the CRDs of 23 real projects at pinned releases, downloaded through the Go module proxy, against the pinned findings in e2e/lintcorpus/testdata and checks that its fixes keep the API working (~1 min cold download, ~40 s warm)
.PHONY: e2e-lintcorpus
e2e-lintcorpus:
	cd e2e/lintcorpus && $(GO) test -count=1 ./...

## e2e-kubebuilder: build kubebuilder v4.15.0 and v4.16.0 and the kubebuilder plugin, scaffold a project with them, generate its CRD with immutable-gen, scaffold a typed webhook and build it (needs the Go module proxy; each release: ~15 min cold, ~3 min warm on a quiet machine)
.PHONY: e2e-kubebuilder
e2e-kubebuilder:
	cd e2e/kubebuilder && $(GO) test -count=1 -timeout 45m -v ./...

## bench-webhook: load test of the webhook beside a no-op webhook on controller-runtime's TLS server, 1/16/64 clients: objects mostly immutable, of every shape (issue 34), mostly mutable, one of 1 MB, and the typed ImmutableValidator (nested module bench/webhook; about 7 min; BENCHFLAGS=-workloads=shapes for one)
## soak-webhook: the webhook for 10 minutes at 200 requests/s; heap, RSS and goroutines at the start and the end
.PHONY: bench-webhook soak-webhook
bench-webhook:
	cd bench/webhook && $(GO) run . $(BENCHFLAGS)
soak-webhook:
	cd bench/webhook && $(GO) run . -soak 10m $(BENCHFLAGS)

## bench-validators: validation-gen (k8s.io/code-generator v0.37.1) beside immutable-gen's typed validators and runtime on two test APIs: the peer differential and generated-code checks, then the benchmarks, -count $(BENCH_VALIDATORS_COUNT), for benchstat -col /impl (nested module bench/validators; BENCHMARKS.md)
.PHONY: bench-validators
BENCH_VALIDATORS_COUNT ?= 6
bench-validators:
	cd bench/validators && $(GO) test -count=1 ./...
	cd bench/validators && $(GO) test -run '^$$' -bench . -benchmem -count $(BENCH_VALIDATORS_COUNT) .
