# Engram: `make help` lists the targets. `make start` and `make test` are the two commands of README.md.
SHELL := /bin/bash
.DEFAULT_GOAL := help
NODE_MODULES_STAMP := node_modules/.engram-installed
MOCHA := node_modules/.bin/mocha
# Development tools run the TypeScript sources (the engram-source export condition) through tsx.
TSX := node --import tsx --conditions=engram-source
export PGHOST ?= 127.0.0.1
export ENGRAM_TEST_DATABASE_URL ?= postgres://postgres@127.0.0.1:5432/postgres
export ENGRAM_TEST_NATS_URL ?= nats://127.0.0.1:4222
# git status when this make run started: `make test` fails when it leaves the working tree changed
# (a fresh clone's `make start` and `make test` must leave `git status` clean).
TREE_STATE = git status --porcelain --untracked-files=all 2>/dev/null | md5sum
TREE_BEFORE := $(shell $(TREE_STATE))

help: ## List the targets
	@grep -hE '^[a-zA-Z0-9_-]+:.*## ' $(MAKEFILE_LIST) | awk 'BEGIN {FS = ":.*## "}; {printf "  %-18s %s\n", $$1, $$2}'

# npm ci from the committed lock (never rewritten here); again only when the lock changed.
$(NODE_MODULES_STAMP): package.json package-lock.json
	npm ci --no-audit --no-fund --loglevel=error
	@touch $@

install: $(NODE_MODULES_STAMP) ## Install npm packages (npm ci) when package.json or package-lock.json changed

build: install ## Compile every lib and service to JavaScript + declarations in its dist/ (tsc -b, incremental)
	node scripts/build-config.mjs
	npx tsc -b tsconfig.build.json

start: build ## Run the whole suite in one process on PGlite in ./data (ENGRAM_DATA_DIR), no external server
	node --enable-source-maps services/all-in-one/dist/src/main.js

run-distributed: build ## Run the six processes against PostgreSQL + NATS (+ Redis) on this machine
	scripts/run-distributed

services: ## Start PostgreSQL, NATS and Redis when they are not running; install pgvector when missing
	scripts/ensure-services

generate: install ## Regenerate libs/proto (ts-proto) and the descriptor set from proto/
	npx buf generate
	npx buf build -o libs/proto/descriptor.binpb
	$(TSX) scripts/gen-client.ts

check-generated: install ## Fail when libs/proto is stale against proto/
	scripts/check-generated
	$(TSX) scripts/gen-client.ts --check

lint: install ## Lint, format check, buf lint, import cycles, strict type check
	npx buf lint
	node scripts/build-config.mjs --check
	npx tsc -p tsconfig.json
	npx eslint --max-warnings 0 .
	npx prettier --check . --log-level warn
	npx madge --circular --extensions ts --ts-config tsconfig.json --exclude '/dist/' libs services scripts test

docs: install ## Regenerate docs/configuration.md, docs/metrics.md and docs/openapi.json (settings schema, metrics catalogue, protos)
	$(TSX) scripts/gen-config-docs.ts > docs/configuration.md
	$(TSX) scripts/gen-metrics-docs.ts > docs/metrics.md
	$(TSX) scripts/gen-openapi.ts > docs/openapi.json

check-docs: install ## Fail when docs/configuration.md, docs/metrics.md or docs/openapi.json is stale
	diff -u docs/configuration.md <($(TSX) scripts/gen-config-docs.ts)
	diff -u docs/metrics.md <($(TSX) scripts/gen-metrics-docs.ts)
	diff -u docs/openapi.json <($(TSX) scripts/gen-openapi.ts)

unit: install ## Unit tests only (no I/O)
	$(MOCHA) 'libs/*/test/**/*.test.ts'

# The checks and the build are independent (the type check reads sources, the build writes dist/):
# two at a time, one lane per core, each target's output printed whole when it ends.
test: install services ## Every check and every test tier (what CI runs)
	$(MAKE) --no-print-directory -j2 --output-sync=target lint check-generated check-docs build
	scripts/run-tests
	@[ "$$($(TREE_STATE))" = "$(TREE_BEFORE)" ] || { echo "make test changed the working tree:"; git status --short; exit 1; }

all: test ## Same as test

bench: build services ## Write and read benchmarks through the gateway (PGlite and PostgreSQL); updates docs/benchmarks.md
	$(TSX) scripts/bench/retrieval.ts

# The peer is installed apart from the project (its own package.json and lock), so `npm ci` stays lean.
scripts/bench/peers/node_modules/.installed: scripts/bench/peers/package.json scripts/bench/peers/package-lock.json
	npm ci --prefix scripts/bench/peers --no-audit --no-fund --loglevel=error
	@touch $@

bench-peers: build services scripts/bench/peers/node_modules/.installed ## Engram and mem0 OSS in the same run (same PostgreSQL, corpus, embedding stand-in, clients); updates docs/benchmarks.md
	$(TSX) scripts/bench/peers.ts

bench-conversation: install ## Recall@5/@10 of query, lexical, hybrid and plain BM25 on the conversational benchmark (BENCH_PARTS, BENCH_EMBEDDER)
	$(TSX) scripts/bench/conversation.ts

bench-lexical-scale: install services ## Lexical channel and hybrid cost at large sizes on PostgreSQL (bulk load), rounds and top 10 vs exhaustive (BENCH_SIZES, BENCH_HYBRID, BENCH_BULK)
	$(TSX) scripts/bench/lexical-scale.ts

bench-lexical-write: install services ## What the write-time BM25 index costs an add at 32 clients on PostgreSQL: with and without the lexical trigger (BENCH_WRITES, BENCH_RUNS)
	$(TSX) scripts/bench/lexical-write-cost.ts

bench-hnsw: install services ## HNSW recall@10 and cost per embedding space (stand-in 384/1536, hash), build and ef_search; updates docs/benchmarks.md
	$(TSX) scripts/bench/hnsw.ts

bench-whole-project: build services ## EXPLAIN of the vector query over the whole project vs one agent at 50k memories, 1536 dimensions
	$(TSX) scripts/bench/whole-project.ts

bench-embedded: build ## The embedded suite at 16 clients: 5,000 adds then queries through REST on PGlite, per PGlite mode; updates docs/benchmarks.md
	$(TSX) scripts/bench/embedded.ts

bench-capacity: build services ## The capacity model: cores per 1,000 writes/s and queries/s per process at 10k and 100k memories, checked with PostgreSQL and the services pinned to separate cores (taskset); updates docs/capacity.md
	$(TSX) scripts/bench/capacity.ts

bench-startup: build ## Start time and resident memory of the embedded process, tsx vs compiled; updates docs/benchmarks.md
	$(TSX) scripts/bench/startup.ts

bench-tracing: build ## What tracing costs per boundary, off and on; updates docs/benchmarks.md
	$(TSX) scripts/bench/tracing.ts

bench-security: install ## Content-security confusion matrices and latency per stage; updates docs/benchmarks.md
	$(TSX) scripts/bench/security.ts

train-injection-model: install ## Train the learned injection signal on the dev corpora; writes libs/security-rules/src/model/injection-model.data.ts
	$(TSX) scripts/train-injection-model.ts

reliability: build ## Long fault tests (PostgreSQL, NATS, Redis, replicas, full disk, 10-min soak) on private servers; figures into docs/reliability.md
	scripts/reliability

image-rehearsal: install ## The image's whole build stage from nothing (npm ci from the lock, tsc -b, prune) in an empty folder, then run as uid 1000
	deploy/image/rehearse

clean: ## Remove the embedded data directory
	rm -rf data

.PHONY: help install build start run-distributed services generate check-generated lint docs check-docs unit test all bench bench-conversation bench-lexical-scale bench-lexical-write bench-peers bench-hnsw bench-whole-project bench-embedded bench-capacity bench-startup bench-tracing bench-security train-injection-model reliability clean
