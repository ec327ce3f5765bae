# tairbench — see README.md. Every target works on a fresh Debian machine as root.
SHELL := /bin/bash
GO ?= go
BIN := bin/tairbench
PKG := github.com/tairbench/tairbench/internal/cli
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
COMMIT ?= $(shell git rev-parse --short HEAD 2>/dev/null || echo none)
DATE ?= $(shell date -u +%Y-%m-%dT%H:%M:%SZ)
LDFLAGS := -s -w -X $(PKG).Version=$(VERSION) -X $(PKG).Commit=$(COMMIT) -X $(PKG).Date=$(DATE)
PLATFORMS := linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64
export CGO_ENABLED ?= 0

.PHONY: all image build build-all deps deps-build test test-short fuzz vet vet-other-os docs-figures bench-whitepaper bench-ycsb bench-roaring bench-bitmap bench-search bench-client bench-baseline bench-cluster bench-ingest bench-serve bench-vector bench-vector-filter-stream bench-track bench-store store-week bench-size bench-replay bench-events bench-go clean

all: build

build: deps-build
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/tairbench

# A container image from scratch with the static binary, for
# 'tairbench k8s job' (where Docker exists).
IMAGE ?= tairbench:$(VERSION)
image: build
	docker build -t $(IMAGE) .

build-all:
	@for p in $(PLATFORMS); do \
	  os=$${p%/*}; arch=$${p#*/}; ext=; [ $$os = windows ] && ext=.exe; \
	  out=dist/tairbench-$(VERSION)-$$os-$$arch$$ext; \
	  echo "build $$out"; \
	  CGO_ENABLED=0 GOOS=$$os GOARCH=$$arch $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $$out ./cmd/tairbench || exit 1; \
	done

deps:
	@bash scripts/install-deps.sh

deps-build:
	@bash scripts/install-deps.sh build

vet:
	@test -z "$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))" || { gofmt -l .; echo "gofmt needed"; exit 1; }
	$(GO) vet ./...

# go vet, tests included, as built for Windows and macOS: files with an OS
# in their name or build line leave things out elsewhere. Not part of
# `make test` (about 5 minutes from a cold build cache on 2 cores).
vet-other-os:
	CGO_ENABLED=0 GOOS=windows $(GO) vet ./...
	CGO_ENABLED=0 GOOS=darwin $(GO) vet ./...

# Unit and integration tests with the race detector. The tests start their
# own redis-server instances; one Elasticsearch 8.19 (scripts/elasticsearch.sh,
# from Maven Central) serves the whole run and is stopped afterwards. The
# binary's tests (open-loop timing among them) run last, alone, so that the
# other packages' tests do not load the machine while they measure.
# TAIRBENCH_SKIP_INTEGRATION=1 skips the integration tests.
ES_TEST_PORT ?= 9231
# The race detector drops sync.Pool items on purpose, so the hot paths'
# allocation counts are checked again without it.
ALLOC_TESTS = echo "allocation tests, without the race detector:" && CGO_ENABLED=0 $(GO) test -count=1 -run Alloc ./internal/... ./pkg/...
test: deps vet
	@if [ "$$TAIRBENCH_SKIP_INTEGRATION" = 1 ]; then \
	  CGO_ENABLED=1 $(GO) test -race -count=1 -timeout 20m ./... && $(ALLOC_TESTS); \
	else \
	  url=$$(bash scripts/elasticsearch.sh start $(ES_TEST_PORT)) || exit 1; \
	  trap 'bash scripts/elasticsearch.sh stop $(ES_TEST_PORT)' EXIT; \
	  TAIRBENCH_ES_URL=$$url CGO_ENABLED=1 $(GO) test -race -count=1 -timeout 30m $$($(GO) list ./... | grep -v '/cmd/tairbench$$') && \
	  $(ALLOC_TESTS) && \
	  echo "timing tests (open-loop schedules and latencies), alone on the machine:" && \
	  { [ -f "$${TAIRBENCH_PEERS:-../shared/peers}/build-memtier.sh" ] || [ -x .cache/peers/memtier_benchmark ] || \
	    echo "NOTE: memtier_benchmark's source is not in $${TAIRBENCH_PEERS:-../shared/peers}: TestSideBySideWithMemtier is skipped"; } && \
	  CGO_ENABLED=1 $(GO) test -race -count=1 -timeout 10m ./cmd/tairbench; \
	fi

# A quick loop for contributors: no external server (redis-server,
# Elasticsearch, Chromium, PyPI's jieba), no race detector, about a minute.
test-short: vet
	TAIRBENCH_SKIP_INTEGRATION=1 $(GO) test -count=1 ./...

fuzz:
	$(GO) test -run '^$$' -fuzz FuzzParse -fuzztime 20s ./pkg/cmdtmpl
	$(GO) test -run '^$$' -fuzz FuzzParseRequest -fuzztime 20s ./internal/fulltext
	$(GO) test -run '^$$' -fuzz FuzzReader -fuzztime 20s ./internal/wiki
	$(GO) test -run '^$$' -fuzz FuzzReader -fuzztime 20s ./internal/trace
	$(GO) test -run '^$$' -fuzz FuzzParse -fuzztime 20s ./internal/trace/monitor
	$(GO) test -run '^$$' -fuzz FuzzParseStat -fuzztime 20s ./internal/frontend/roaring
	$(GO) test -run '^$$' -fuzz FuzzReadIDs -fuzztime 20s ./internal/frontend/bitmap
	$(GO) test -run '^$$' -fuzz FuzzParse -fuzztime 20s ./internal/threshold
	$(GO) test -run '^$$' -fuzz FuzzReadCommand -fuzztime 20s ./pkg/resp
	$(GO) test -run '^$$' -fuzz FuzzReadReply -fuzztime 20s ./pkg/resp
	$(GO) test -run '^$$' -fuzz FuzzPlainReplies -fuzztime 20s ./pkg/resp
	$(GO) test -run '^$$' -fuzz FuzzNormalize -fuzztime 20s ./internal/stats
	$(GO) test -run '^$$' -fuzz FuzzParse -fuzztime 20s ./internal/frontend/redisbenchmark
	$(GO) test -run '^$$' -fuzz FuzzParse -fuzztime 20s ./internal/frontend/memtier
	$(GO) test -run '^$$' -fuzz FuzzParse -fuzztime 20s ./internal/frontend/ycsb
	$(GO) test -run '^$$' -fuzz 'FuzzParse$$' -fuzztime 20s ./internal/vector
	$(GO) test -run '^$$' -fuzz FuzzParseFilter -fuzztime 20s ./internal/vector
	$(GO) test -run '^$$' -fuzz FuzzParseQrels -fuzztime 20s ./internal/relevance
	$(GO) test -run '^$$' -fuzz FuzzParseQueries -fuzztime 20s ./internal/relevance
	$(GO) test -run '^$$' -fuzz FuzzParseVecs -fuzztime 20s ./internal/vecdata
	$(GO) test -run '^$$' -fuzz FuzzEncodeHistogram -fuzztime 20s ./pkg/result

bench-go:
	$(GO) test -run '^$$' -bench . -benchmem ./pkg/... ./internal/...

# The TairRoaring whitepaper's tables. Default: the embedded server, in
# process, 2 s per case and TR.STAT sampling up to 4,000,000 bits (about two
# minutes on 2 cores). With HOST=… [PORT=…] [AUTH=user:password]: that
# instance, with the whitepaper's 30 s per case and sampling up to 5*10^8 bits.
HOST ?=
PORT ?= 6379
AUTH ?=
RESULTS ?= results
# Each bench target that feeds the docs tees its report into
# $(FIGURES)/TARGET.md after a stamp line (command, commit, date);
# scripts/docs_figures.py puts it between the docs' markers.
FIGURES := .cache/figures
stamp = mkdir -p $(FIGURES) && echo "\`make $(1)\` at commit $(COMMIT), $$(date -u +%Y-%m-%d), on this machine ($$(nproc) cores):" > $(FIGURES)/$(1).md
ifeq ($(HOST),)
ROARING_TARGET := --embedded --duration-per-case 2 --stat-max-card 4000000 --stat-universe 16777216
else
ROARING_TARGET := --host $(HOST) --port $(PORT) $(if $(AUTH),-a '$(AUTH)') --duration-per-case 30 --stat-max-card 500000000
endif
bench-roaring: build
	@mkdir -p $(RESULTS)
	@$(call stamp,bench-roaring)
	$(BIN) roaring $(ROARING_TARGET) --stat --json $(RESULTS)/roaring-$$(date -u +%Y%m%dT%H%M%SZ).json | tee -a $(FIGURES)/bench-roaring.md; exit $${PIPESTATUS[0]}

# TairRoaring, Redis bitmaps or Redis sets (issue #23): a small sweep of
# generated IDs (2 keys of 10^3, 10^5 and 10^6 uniform IDs below 2^24)
# on the embedded server and a redis-server started on a free port; the
# full report in $(RESULTS), the sweep summary (who wins, crossovers) in
# the README. About four minutes on 2 cores.
BITMAP_ARGS ?= --cardinality 1e3,1e5,1e6 --universe 2^24 --keys 2 -d 2 -c 4
bench-bitmap: deps build
	@mkdir -p $(RESULTS)
	@$(call stamp,bench-bitmap)
	@out=$(RESULTS)/bitmap-$$(date -u +%Y%m%dT%H%M%SZ); \
	$(BIN) bitmap compare $(BITMAP_ARGS) --json $$out.json > $$out.txt; rc=$$?; cat $$out.txt; \
	sed -n '/^sweep summary/,$$p' $$out.txt >> $(FIGURES)/bench-bitmap.md; exit $$rc

# The whitepaper's tables: TairRoaring (as bench-roaring), the enhanced
# edition's redis-benchmark SET/GET tables and the cluster edition's
# memtier line, each with the published figures beside and one JSON per
# suite in $(RESULTS). Default: the embedded server, -n 300000 per
# enhanced case and a 30 s cluster run (about 3 minutes on 2 cores); with
# HOST=… [PORT=…] [AUTH=…]: that instance.
WHITEPAPER_REQUESTS ?= 300000
WHITEPAPER_TEST_TIME ?= 30
ifeq ($(HOST),)
SUITE_TARGET :=
else
SUITE_TARGET := --host $(HOST) --port $(PORT) $(if $(AUTH),-a '$(AUTH)')
endif
bench-whitepaper: bench-roaring bench-ycsb
	@$(call stamp,bench-whitepaper)
	@set -o pipefail; $(BIN) suite enhanced $(SUITE_TARGET) --requests $(WHITEPAPER_REQUESTS) --json $(RESULTS)/enhanced-$$(date -u +%Y%m%dT%H%M%SZ).json | tee -a $(FIGURES)/bench-whitepaper.md
	@echo >> $(FIGURES)/bench-whitepaper.md
	@set -o pipefail; $(BIN) suite cluster $(SUITE_TARGET) --test-time $(WHITEPAPER_TEST_TIME) --json $(RESULTS)/cluster-$$(date -u +%Y%m%dT%H%M%SZ).json | tee -a $(FIGURES)/bench-whitepaper.md
	@echo >> $(FIGURES)/bench-whitepaper.md
	@set -o pipefail; $(BIN) suite persistence --json $(RESULTS)/persistence-$$(date -u +%Y%m%dT%H%M%SZ).json | tee -a $(FIGURES)/bench-whitepaper.md

# The persistent-memory and ESSD whitepapers' YCSB tables, against a
# redis-server this target starts on a free port (installed by make deps),
# or HOST=…: YCSB_RECORDS records per case (default: 20000 for pmem, 200000
# for essd).
YCSB_RECORDS ?=
bench-ycsb: deps build
	@mkdir -p $(RESULTS)
	@$(call stamp,bench-ycsb)
	@set -o pipefail; $(BIN) suite pmem $(SUITE_TARGET) $(if $(YCSB_RECORDS),--records $(YCSB_RECORDS)) --json $(RESULTS)/pmem-$$(date -u +%Y%m%dT%H%M%SZ).json | tee -a $(FIGURES)/bench-ycsb.md
	@echo >> $(FIGURES)/bench-ycsb.md
	@set -o pipefail; $(BIN) suite essd $(SUITE_TARGET) $(if $(YCSB_RECORDS),--records $(YCSB_RECORDS)) --json $(RESULTS)/essd-$$(date -u +%Y%m%dT%H%M%SZ).json | tee -a $(FIGURES)/bench-ycsb.md

# TairSearch (embedded) vs Elasticsearch 8.19 (local, scripts/elasticsearch.sh)
# on a generated 100,000-document dump: write, term query, aggregation with
# caches on and off. A few minutes on 2 cores.
SEARCH_DOCS ?= 100000
SEARCH_CONNS ?= 8
SEARCH_QUERIES ?= 20000
ES_BENCH_PORT ?= 9232
bench-search: deps build
	@mkdir -p .cache $(RESULTS)
	@[ -f .cache/wiki-$(SEARCH_DOCS).xml ] || $(BIN) wiki gen --docs $(SEARCH_DOCS) --out .cache/wiki-$(SEARCH_DOCS).xml
	@$(call stamp,bench-search)
	@url=$$(bash scripts/elasticsearch.sh start $(ES_BENCH_PORT)) || exit 1; \
	trap 'bash scripts/elasticsearch.sh stop $(ES_BENCH_PORT)' EXIT; \
	$(BIN) search compare --embedded --es $$url -f .cache/wiki-$(SEARCH_DOCS).xml -c $(SEARCH_CONNS) \
	  --queries $(SEARCH_QUERIES) --json $(RESULTS)/search-$$(date -u +%Y%m%dT%H%M%SZ).json | tee -a $(FIGURES)/bench-search.md; exit $${PIPESTATUS[0]}

# Client CPU per command beside redis-benchmark, memtier (built from
# ../shared/peers into .cache/peers) and resp-benchmark (PyPI,
# .cache/respbench). Bars: every row at or below the best peer (paired
# ratio 1.0), the client's memory at 1,000 and 10,000 connections, and the
# open-loop table's (issue #26: --rate at most 1.3x the closed loop's CPU
# per request and 1.0x memtier --rate-limiting's, at 20,000 and 50,000/s). A
# missing peer fails the run; SKIP_PEERS="memtier …" leaves peers out, and
# their cells say so.
SKIP_PEERS ?=
# Issue #26 asks for medians of 5 interleaved runs.
BENCH_CLIENT_REPS ?= 5
bench-client: deps build
	@$(call stamp,bench-client)
	@python3 scripts/bench_client.py --bin $(BIN) --reps $(BENCH_CLIENT_REPS) $(foreach p,$(SKIP_PEERS),--skip-peer $(p)) | tee -a $(FIGURES)/bench-client.md; exit $${PIPESTATUS[0]}

# tairbench against an earlier commit (BASE=COMMIT) on bench-client's rows:
# client CPU per command, paired ratios new ÷ base; informs, gates nothing.
bench-baseline: deps build
	@test -n "$(BASE)" || { echo "make bench-baseline BASE=COMMIT: the commit to compare with"; exit 2; }
	@rm -rf .cache/baseline && git worktree add --detach .cache/baseline $(BASE) >/dev/null && \
	  (cd .cache/baseline && CGO_ENABLED=0 $(GO) build -trimpath -o ../baseline-tairbench ./cmd/tairbench); \
	  st=$$?; git worktree remove --force .cache/baseline; exit $$st
	@python3 scripts/bench_baseline.py --bin $(BIN) --base .cache/baseline-tairbench --reps $(BENCH_CLIENT_REPS)

# The slot-aware cluster path's client CPU per command against the standalone path.
bench-cluster: deps build
	@$(call stamp,bench-cluster)
	@python3 scripts/bench_cluster.py --bin $(BIN) | tee -a $(FIGURES)/bench-cluster.md; exit $${PIPESTATUS[0]}

# Issue #14's ingest bars: Elasticsearch client CPU per document (60 µs
# single, 15 µs in _bulk) and TairSearch ingest over RESP (20,000 docs/s).
bench-ingest: deps build
	@$(call stamp,bench-ingest)
	@python3 scripts/bench_ingest.py --bin $(BIN) | tee -a $(FIGURES)/bench-ingest.md; exit $${PIPESTATUS[0]}

# TairVector on the embedded server (issue #25): FLAT exact on
# Random-s-100 (made from PyPI scikit-learn into .cache/vector), HNSW on it
# beside FAISS (PyPI faiss-cpu) on the same data, and HNSW against FLAT on
# a 100,000 x 128 clustered set. Bars: FLAT recall exactly 1.0; HNSW below
# 1.0 at the smallest ef_search, >= 0.95 at the largest, and >= 5x FLAT's
# QPS at recall 0.95. About eight minutes on 2 cores the first time.
bench-vector: deps build
	@$(call stamp,bench-vector)
	@python3 scripts/bench_vector.py --bin $(BIN) | tee -a $(FIGURES)/bench-vector.md; exit $${PIPESTATUS[0]}
	@$(MAKE) --no-print-directory bench-vector-filter-stream

# Filtered and streaming vector search (issue #57) on the embedded server
# and on Elasticsearch 8.19 (scripts/elasticsearch.sh), 50,000 x 128
# clustered vectors. Bars: filtered FLAT exact on both at 1, 10 and 50 %;
# filtered HNSW on the embedded server reaches recall 0.95 at 1 %; every
# streamed vector acknowledged and every probed one found. make bench-vector
# runs it too. About four minutes on 2 cores.
bench-vector-filter-stream: deps build
	@$(call stamp,bench-vector-filter-stream)
	@python3 scripts/bench_vector.py --bin $(BIN) --filter-stream | tee -a $(FIGURES)/bench-vector-filter-stream.md; exit $${PIPESTATUS[0]}

# A search track (issue #24): the built-in Chinese e-commerce track (20,000
# generated products) on the embedded TairSearch and on Elasticsearch 8.19
# with jieba on both (scripts/elasticsearch.sh builds the plugin). Bar:
# every task runs on both engines without a failed request (the command
# exits non-zero otherwise). About a minute on 2 cores.
TRACK ?= ecommerce-zh
bench-track: deps build
	@mkdir -p $(RESULTS)
	@$(call stamp,bench-track)
	@echo '$$ tairbench search run $(TRACK) --embedded --es URL --quiet --seed 1' >> $(FIGURES)/bench-track.md
	@url=$$(bash scripts/elasticsearch.sh start $(ES_BENCH_PORT)) || exit 1; \
	trap 'bash scripts/elasticsearch.sh stop $(ES_BENCH_PORT)' EXIT; \
	$(BIN) search run $(TRACK) --embedded --es $$url --quiet --seed 1 \
	  --json $(RESULTS)/track-$(TRACK)-$$(date -u +%Y%m%dT%H%M%SZ).json | tee -a $(FIGURES)/bench-track.md; exit $${PIPESTATUS[0]}

# Embedded server TR.GETBIT vs redis-server GETBIT: the servers take turns,
# 3 repetitions, the median paired ratio at -P 1 and -P 16 against a bar
# of 1.0 (issue #14), with the spread.
bench-serve: deps build
	@$(call stamp,bench-serve)
	@python3 scripts/bench_serve.py --bin $(BIN) | tee -a $(FIGURES)/bench-serve.md; exit $${PIPESTATUS[0]}

# The results store's bars (issue #56): storing a one-hour run (3,600
# seconds, 10 operations) under 1 s, and 'history' over 10,000 stored runs
# under 200 ms. Medians of 5; exits non-zero when a bar is missed.
bench-store:
	@$(call stamp,bench-store)
	@$(GO) test -run '^$$' -bench 'PutOneHourRun|HistoryOver10000Runs' -benchtime 5x -count 3 ./internal/store ./internal/frontend/history | \
	  python3 scripts/bench_bars.py 'PutOneHourRun=1s' 'HistoryOver10000Runs/all=200ms' 'HistoryOver10000Runs/main-30d=200ms' | \
	  tee -a $(FIGURES)/bench-store.md; exit $${PIPESTATUS[1]}

# Your own traffic (issue #55): MONITOR text parsed on one core, against a
# bar of 500,000 lines a second (10,000 lines in at most 20 ms); then a known
# workload captured, fitted and replayed on redis-server (scripts/bench_replay.py:
# 99 % on schedule at speed 2; 100,000 commands/s at most 1.5x the grid's CPU).
bench-replay: deps build
	@$(call stamp,bench-replay)
	@$(GO) test -run '^$$' -bench 'Parse$$' -benchtime 50x -count 5 -cpu 1 ./internal/trace/monitor | \
	  python3 scripts/bench_bars.py 'Parse=20ms' | tee -a $(FIGURES)/bench-replay.md; exit $${PIPESTATUS[1]}
	@echo >> $(FIGURES)/bench-replay.md
	@python3 scripts/bench_replay.py --bin $(BIN) | tee -a $(FIGURES)/bench-replay.md; exit $${PIPESTATUS[0]}

# Events inside runs (docs/events.md): a Sentinel failover 5 times with
# the write ledger, a reshard of 1,000 slots, the persistence suite, and
# 50,000/s from one client core through a BGSAVE; exits 1 when a bar is
# missed.
bench-events: deps build
	@$(call stamp,bench-events)
	@python3 scripts/bench_events.py --bin $(BIN) | tee -a $(FIGURES)/bench-events.md; exit $${PIPESTATUS[0]}

# The binary's size and start-up memory against an earlier commit's
# (SIZE_BASE, cbaeff3 by default: issue #56's reference), each built as
# 'make build' builds. Informs; gates nothing.
SIZE_BASE ?= cbaeff3
bench-size: build
	@$(call stamp,bench-size)
	@rm -rf .cache/size-base && git worktree add --detach .cache/size-base $(SIZE_BASE) >/dev/null && \
	  (cd .cache/size-base && CGO_ENABLED=0 $(GO) build -trimpath -ldflags '-s -w' -o ../size-base-tairbench ./cmd/tairbench); \
	  st=$$?; git worktree remove --force .cache/size-base; exit $$st
	@python3 scripts/bench_size.py --bin $(BIN) --base .cache/size-base-tairbench --base-name $(SIZE_BASE) | tee -a $(FIGURES)/bench-size.md; exit $${PIPESTATUS[0]}

# A week of nightly runs kept and judged (docs/store.md): seven runs of one
# build, an eighth made 20 % slower by a --rate cap, imported, trended,
# gated (exit 99 expected) and the trend page drawn in headless Chromium.
# Exits non-zero when the gate misses the slower run or the chart is empty.
store-week: deps build
	@mkdir -p $(RESULTS)
	@$(call stamp,store-week)
	@bash scripts/store_week.sh $(abspath $(BIN)) $(RESULTS)/store-week | tee -a $(FIGURES)/store-week.md; exit $${PIPESTATUS[0]}

# The measured blocks of README.md and docs/ (between <!-- figures: make
# TARGET --> markers) from a fresh run of each target; a target that
# misses its bar still writes its figures, which say so. Long: every
# bench target in turn (DOCS_FIGURES= picks some).
DOCS_FIGURES ?= bench-serve bench-whitepaper bench-roaring bench-ycsb bench-bitmap bench-client bench-cluster bench-search bench-ingest bench-vector bench-vector-filter-stream bench-track bench-store store-week bench-size bench-replay bench-events
docs-figures:
	@for t in $(DOCS_FIGURES); do $(MAKE) --no-print-directory $$t || echo "make $$t missed its bar: its figures say so"; done
	@python3 scripts/docs_figures.py $(DOCS_FIGURES)

clean:
	rm -rf bin dist results
