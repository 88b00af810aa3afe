# Engram: `make help` lists the targets. `make start` and `make test` are the two commands of README.md.
SHELL := /bin/bash
.DEFAULT_GOAL := help
NODE_MODULES_STAMP := node_modules/.engram-installed
MOCHA := node_modules/.bin/mocha
export PGHOST ?= 127.0.0.1
export ENGRAM_TEST_DATABASE_URL ?= postgres://postgres@127.0.0.1:5432/postgres
export ENGRAM_TEST_NATS_URL ?= nats://127.0.0.1:4222

help: ## List the targets
	@grep -hE '^[a-zA-Z0-9_-]+:.*## ' $(MAKEFILE_LIST) | awk 'BEGIN {FS = ":.*## "}; {printf "  %-18s %s\n", $$1, $$2}'

# npm install, not npm ci: the lock file npm 11 writes here lacks the other platforms' optional
# binaries of @bufbuild/buf, which npm ci then reports as out of sync (docs/decisions.md).
$(NODE_MODULES_STAMP): package.json package-lock.json
	npm install --no-audit --no-fund --loglevel=error
	@touch $@

install: $(NODE_MODULES_STAMP) ## Install npm packages when package.json or package-lock.json changed

start: install ## Run the whole suite in one process on PGlite in ./data (ENGRAM_DATA_DIR), no external server
	node --import tsx services/all-in-one/src/main.ts

run-distributed: install ## Run the six processes against PostgreSQL + NATS (+ Redis) on this machine
	scripts/run-distributed

services: ## Start PostgreSQL, NATS and Redis when they are not running; install pgvector when missing
	scripts/ensure-services

generate: install ## Regenerate libs/proto (ts-proto) and the descriptor set from proto/
	npx buf generate
	npx buf build -o libs/proto/descriptor.binpb

check-generated: install ## Fail when libs/proto is stale against proto/
	scripts/check-generated

lint: install ## Lint, format check, buf lint, import cycles, strict type check
	npx buf lint
	npx tsc -p tsconfig.json
	npx eslint --max-warnings 0 .
	npx prettier --check . --log-level warn
	npx madge --circular --extensions ts --ts-config tsconfig.json libs services scripts test

docs: install ## Regenerate docs/configuration.md from the settings schema
	node --import tsx scripts/gen-config-docs.ts > docs/configuration.md

check-docs: install ## Fail when docs/configuration.md is stale
	diff -u docs/configuration.md <(node --import tsx scripts/gen-config-docs.ts)

unit: install ## Unit tests only (no I/O)
	$(MOCHA) 'libs/*/test/**/*.test.ts'

test: install services lint check-generated check-docs ## Every check and every test tier (what CI runs)
	scripts/run-tests

all: test ## Same as test

bench: install services ## Write and read benchmarks through the gateway (PGlite and PostgreSQL); updates docs/benchmarks.md
	node --import tsx scripts/bench/retrieval.ts

bench-security: install ## Content-security confusion matrices and latency per stage; updates docs/benchmarks.md
	node --import tsx scripts/bench/security.ts

clean: ## Remove the embedded data directory
	rm -rf data

.PHONY: help install start run-distributed services generate check-generated lint docs check-docs unit test all bench bench-security clean
