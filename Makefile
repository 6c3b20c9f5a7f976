# Chaiwala — `make run` starts the whole stack, `make test` runs every test.
# Both set everything up first on a machine that has only Python 3.11.

PYTHON ?= $(shell command -v python3.11 2>/dev/null || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
PROTO_SRC := $(shell find proto -name '*.proto')
# Debian's paths, as tests/support/browser.py expects them.
CHROMIUM := /usr/bin/chromium
CHROMEDRIVER := /usr/bin/chromedriver

export PYTHONPATH := $(CURDIR):$(CURDIR)/gen
# mkdocs-material's banner about its successor, printed on every build.
export NO_MKDOCS_2_WARNING := 1

.PHONY: two-hosts research setup proto run checks test test-fast lint browser browser-tools redis-tls screenshots node contract sdk docs docs-check docs-openapi bench clean seeds-india chaos scale bots-fair bots-strength search-strength search-timing bots-report

setup: $(VENV)/.installed gen/.stamp gen/chaiwala.descriptors.pb

$(VENV)/.installed: pyproject.toml constraints.txt
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip==26.3
	$(BIN)/python -m pip install --quiet -c constraints.txt -e '.[local,codegen,dev,reports]'
	$(BIN)/python -c 'import pathlib, sysconfig; pathlib.Path(sysconfig.get_paths()["purelib"], "chaiwala-gen.pth").write_text("$(CURDIR)/gen\n")'
	touch $@

# Generated code lives in gen/ (git-ignored) and is never edited by hand.
proto: $(VENV)/.installed
	rm -rf gen && mkdir -p gen
	PATH="$(CURDIR)/$(BIN):$$PATH" $(BIN)/python -m grpc_tools.protoc -Iproto \
		--python_out=gen --grpc_python_out=gen --mypy_out=gen \
		--include_source_info --descriptor_set_out=gen/chaiwala.descriptors.pb \
		$(PROTO_SRC)
	touch gen/.stamp

gen/.stamp: $(VENV)/.installed $(PROTO_SRC)
	$(MAKE) proto

# The protos' comments (the API documents' descriptions, gateway/openapi_comments.py): a gen/ made
# before they were kept is made again.
gen/chaiwala.descriptors.pb:
	$(MAKE) proto

run: setup sdk
	$(BIN)/python -m services.processes

# Browser tests drive Debian's chromium through chromium-driver: install them when missing (as root,
# with apt-get), and stop with the reason when that is impossible; browser tests never skip.
browser:
	@if [ -x $(CHROMIUM) ] && [ -x $(CHROMEDRIVER) ]; then exit 0; fi; \
	if [ "$$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then \
		echo "make browser: chromium and chromium-driver are missing and cannot be installed here (needs root and apt-get); install them, e.g. sudo apt-get install chromium chromium-driver" >&2; exit 1; fi; \
	echo "make browser: installing chromium and chromium-driver"; \
	(apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq -o DPkg::Lock::Timeout=600 chromium chromium-driver >/dev/null) \
		|| { echo "make browser: apt-get could not install chromium and chromium-driver" >&2; exit 1; }; \
	[ -x $(CHROMIUM) ] && [ -x $(CHROMEDRIVER) ] \
		|| { echo "make browser: apt-get ran but $(CHROMIUM) or $(CHROMEDRIVER) is still missing" >&2; exit 1; }

# The test of TLS to Redis (tests/ops/test_redis_tls.py) needs a Redis built with TLS, which the
# embedded one is not: Debian's Redis 7, whose server binary ships in redis-tools (no service of its
# own, unlike the redis-server package; tests/support/tls_redis.py). Install it when missing (as
# root, with apt-get), and stop with the reason when that is impossible.
redis-tls:
	@if [ -x /usr/bin/redis-server ] || [ -x /usr/bin/redis-check-rdb ]; then exit 0; fi; \
	if [ "$$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then \
		echo "make redis-tls: Debian's redis-tools is missing and cannot be installed here (needs root and apt-get); install it, e.g. sudo apt-get install redis-tools" >&2; exit 1; fi; \
	echo "make redis-tls: installing redis-tools"; \
	(apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq -o DPkg::Lock::Timeout=600 redis-tools >/dev/null) \
		|| { echo "make redis-tls: apt-get could not install redis-tools" >&2; exit 1; }; \
	[ -x /usr/bin/redis-check-rdb ] \
		|| { echo "make redis-tls: apt-get ran but /usr/bin/redis-check-rdb is still missing" >&2; exit 1; }

# The SDK and the contract tools run on Debian's node and npm: install them when missing (as root,
# with apt-get), and stop with the reason when that is impossible.
node:
	@if command -v node >/dev/null && command -v npm >/dev/null; then exit 0; fi; \
	if [ "$$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then \
		echo "make node: node and npm are missing and cannot be installed here (needs root and apt-get); install them, e.g. sudo apt-get install nodejs npm" >&2; exit 1; fi; \
	echo "make node: installing nodejs and npm"; \
	(apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq -o DPkg::Lock::Timeout=600 nodejs npm >/dev/null) \
		|| { echo "make node: apt-get could not install nodejs and npm" >&2; exit 1; }; \
	command -v node >/dev/null && command -v npm >/dev/null \
		|| { echo "make node: apt-get ran but node or npm is still missing" >&2; exit 1; }

# The pinned contract tools (tools/contract/package-lock.json), installed once per lock change.
CONTRACT := tools/contract
CONTRACT_BIN := $(CONTRACT)/node_modules/.bin
CONTRACT_OUT := var/contract
$(CONTRACT)/node_modules/.installed: $(CONTRACT)/package.json $(CONTRACT)/package-lock.json
	$(MAKE) node
	cd $(CONTRACT) && SCARF_ANALYTICS=false npm ci --ignore-scripts --no-audit --no-fund --loglevel=error
	touch $@

# The API contract: the OpenAPI document (built in-process) linted by Redocly's recommended rules
# (waivers in tools/contract/redocly.yaml), the AsyncAPI document validated by AsyncAPI's parser,
# and TypeScript types generated from the OpenAPI document proven by tools/contract/contract.ts.
contract: setup $(CONTRACT)/node_modules/.installed
	$(BIN)/python $(CONTRACT)/write_documents.py $(CONTRACT_OUT)
	REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true $(CONTRACT_BIN)/redocly lint \
		--config $(CONTRACT)/redocly.yaml --format summary $(CONTRACT_OUT)/openapi.json
	node $(CONTRACT)/validate-asyncapi.mjs $(CONTRACT_OUT)/asyncapi.json
	$(CONTRACT_BIN)/openapi-typescript $(CONTRACT_OUT)/openapi.json --output $(CONTRACT)/generated/api.d.ts
	$(CONTRACT_BIN)/tsc --strict --noEmit --target es2022 --module nodenext --moduleResolution nodenext \
		$(CONTRACT)/contract.ts

# The browser tests' pinned tools (tools/browser/package-lock.json: axe-core, whose axe.min.js
# tests/support/legibility.py injects into every page), installed once per lock change.
BROWSER_TOOLS := tools/browser
$(BROWSER_TOOLS)/node_modules/.installed: $(BROWSER_TOOLS)/package.json $(BROWSER_TOOLS)/package-lock.json
	$(MAKE) node
	cd $(BROWSER_TOOLS) && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error
	touch $@
browser-tools: $(BROWSER_TOOLS)/node_modules/.installed

# The docs' screenshots of every table (desktop and phone; start, middle, end), the lobby and the
# replay viewer, through the real stack and chromium: tools/screenshots.py [GAMES="darjeeling ..."].
screenshots: setup browser browser-tools sdk
	$(BIN)/python tools/screenshots.py $(GAMES)

# The TypeScript SDK (@chaiwala/client): its pinned tools from package-lock.json, its types generated
# by openapi-typescript from the OpenAPI document (built in-process by docs-openapi) and the player
# stream's payloads (tools/gen_sdk_player.py, from the AsyncAPI side), compiled by tsc
# to ES modules in sdk/typescript/dist/ and copied to web/sdk/, which the web client imports (both
# git-ignored).  tests/sdk runs its node tests against the real stack.
SDK := sdk/typescript
$(SDK)/node_modules/.installed: $(SDK)/package.json $(SDK)/package-lock.json
	$(MAKE) node
	cd $(SDK) && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error
	touch $@
sdk: docs-openapi $(SDK)/node_modules/.installed
	@cmp -s docs/reference/openapi.json $(SDK)/openapi.json && [ -f $(SDK)/src/generated/api.ts ] || { \
		cp docs/reference/openapi.json $(SDK)/openapi.json && \
		$(SDK)/node_modules/.bin/openapi-typescript $(SDK)/openapi.json --output $(SDK)/src/generated/api.ts --silent; }
	@$(BIN)/python tools/gen_sdk_player.py $(SDK)/player.json.new
	@cmp -s $(SDK)/player.json.new $(SDK)/player.json && [ -f $(SDK)/src/generated/player.ts ] || { \
		mv $(SDK)/player.json.new $(SDK)/player.json && \
		$(SDK)/node_modules/.bin/openapi-typescript $(SDK)/player.json --output $(SDK)/src/generated/player.ts --silent; }
	@rm -f $(SDK)/player.json.new
	$(SDK)/node_modules/.bin/tsc -p $(SDK)/tsconfig.json
	rm -rf web/sdk && mkdir -p web/sdk && cd $(SDK)/dist && find . -name '*.js' -exec cp --parents {} ../../../web/sdk/ \;

# Checks first: ruff and mypy clean is part of passing; so are a docs site that builds with --strict,
# a contract that lints and compiles, and the SDK built (tests/sdk runs its tests).  The installers
# (apt-get, pip and the three npm installs) run one at a time, then the checks two at a time: each
# is one process on one core (2026-12-07, warm caches: 11.7-17.9 s one after another, 7.3-14.6 s two
# at a time).
checks: setup browser redis-tls node $(CONTRACT)/node_modules/.installed \
		$(BROWSER_TOOLS)/node_modules/.installed $(SDK)/node_modules/.installed
	$(MAKE) -j2 --output-sync=target lint browser-tools docs-check contract sdk
# Three workers on two cores: most tests wait on processes and sockets, so two left a core idle
# (2026-12-07: 702 s at -n 3 against 794 s at -n 2).
test: checks
	$(BIN)/python -m pytest -n 3 --dist worksteal -q

test-fast: setup
	$(BIN)/python -m pytest -q -m "not slow"

lint: setup
	$(BIN)/ruff check services gateway tests bench seeds research tools
	$(BIN)/mypy
	$(BIN)/lint-imports

bench: setup
	$(BIN)/python -m bench

# Measurement trials (balance and content trials of the bots report's findings) live in research/;
# `make research` runs their tests (make test runs them too); the scripts' own docstrings give their runs.
research: setup
	$(BIN)/python -m pytest research -q

# The docs site (mkdocs.yml, docs/) into site/, both git-ignored like the API reference's generated
# files: docs/reference/openapi.json and its Markdown, built in-process from the gateway's routes and
# the protos (tools/gen_openapi.py; no server, no network).
docs-openapi: setup
	$(BIN)/python tools/gen_openapi.py
docs: docs-openapi
	$(BIN)/mkdocs build --strict -d site
# What make test runs: the same strict build, its INFO lines kept back (a broken link or a page left out
# of the nav fails). Not `--quiet`: that drops warnings before strict mode can count them.
docs-check: docs-openapi
	@log=$$(mktemp); $(BIN)/mkdocs build --strict -d site >$$log 2>&1 || { grep -v '^INFO' $$log; rm -f $$log; exit 1; }; rm -f $$log

# The bots' fairness properties over ten times the positions `make test` checks (tests/bots).
bots-fair: setup
	CHAIWALA_BOTS_SWEEP=10 $(BIN)/python -m pytest tests/bots -n 2 -q

# The heuristic against random bots, 60 tables at every count of every game (make test plays the slice);
# python -m services.arena.strength prints docs/lab/bots-strength.md's table from the same measurement.
bots-strength: setup
	CHAIWALA_BOTS_STRENGTH=full $(BIN)/python -m pytest tests/bots/test_bots_strength.py -n 2 -q

# Two hosts, one failure: the whole system on two network namespaces of this machine (Redis Cluster
# over both, a supervisor per host, HAProxy in front) while one host is killed and cut off, then
# restored (docs/guides/operators.md). Needs root and `ip netns`; installs haproxy and iproute2 with
# apt-get when missing. Not part of `make test`; the figures go to var/two-hosts.json.
two-hosts: setup
	@if [ "$$(id -u)" != 0 ]; then \
		echo "make two-hosts: needs root (it makes network namespaces, veth pairs and a bridge)" >&2; exit 1; fi; \
	if ! command -v haproxy >/dev/null || ! command -v ip >/dev/null; then \
		command -v apt-get >/dev/null || { echo "make two-hosts: haproxy or iproute2 missing and no apt-get to install them" >&2; exit 1; }; \
		echo "make two-hosts: installing haproxy and iproute2"; \
		(apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq -o DPkg::Lock::Timeout=600 haproxy iproute2 >/dev/null) \
			|| { echo "make two-hosts: apt-get could not install haproxy and iproute2" >&2; exit 1; }; fi
	CHAIWALA_TWO_HOSTS=1 timeout 900 $(BIN)/python -m pytest tests/twohosts -q -s -p no:cacheprovider

# The long chaos plan (make test runs the small slice): kill -9 Redis, rules services, the gateway
# and the conductor in turn under load; the report goes to chaos-results/ (git-ignored).
chaos: setup
	CHAIWALA_CHAOS=long $(BIN)/python -m pytest tests/chaos -m chaos -q -s
# The live-event fan-out at full size: 500 SSE spectators on one game while other games play
# (`make test` runs the same test with 150), and every India Rails player count played by bots over
# REST (`make test` plays one count there and every count in-process).
scale: setup
	CHAIWALA_SCALE_SPECTATORS=500 $(BIN)/python -m pytest -q tests/streaming/test_fanout.py -k spectators
	CHAIWALA_PLATFORM_COUNTS=all $(BIN)/python -m pytest -q -n 2 tests/games/test_every_game_played.py

# The search bot (SEARCH_LEVEL, default mcts) against the heuristic, 2 players, seats rotated, every
# game, then Darjeeling at 3 players (long; the figures are in docs/lab/bots-search.md).
# SEARCH_GAMES tables per game; SEARCH_JOBS processes; CPU ms per move: search-timing.
SEARCH_GAMES ?= 40
SEARCH_JOBS ?= 2
SEARCH_LEVEL ?= mcts
search-strength: setup
	for game in $$($(BIN)/python -c "from services.common.registry import game_types; print(*game_types())"); do \
		$(BIN)/chaiwala arena --game $$game --players 2 --bots $(SEARCH_LEVEL),heuristic --games $(SEARCH_GAMES) \
			--jobs $(SEARCH_JOBS) --json; done
	$(BIN)/chaiwala arena --game darjeeling --players 3 --bots $(SEARCH_LEVEL),heuristic,heuristic \
		--games $(SEARCH_GAMES) --jobs $(SEARCH_JOBS) --json
search-timing: setup
	$(BIN)/python -m services.bots.timing
# The committed arena report (docs/bots-report.md + docs/bots-report/): heuristic v random at every
# count of every game, search v heuristic at every count, seat and content balance in self-play,
# and the search bot against itself (the "strongest" runs, with the heuristic on the same tables).
# About 9.5 hours of CPU, ~5 h on two free cores: ~4.5 h for the first four sections (the search
# runs are most of it: India Rails' five counts ~76 min, its 6-seat tables 2.6 min each; its
# heuristic balance at 4-6 seats ~1 h) and ~5 h for the 16 strongest runs (5-65 min of CPU each,
# India Rails 4-6 ~2 h); BOTS_REPORT_ARGS="--scale 0.5" halves every run, and
# BOTS_REPORT_ARGS="--only search:tea_rum:3 --skip ..." re-plays only some runs, keeping the others.
bots-report: setup
	nice -n 19 $(BIN)/chaiwala arena-report --jobs 2 --out docs $(BOTS_REPORT_ARGS)

clean:
	rm -rf gen $(VENV) var .pytest_cache .mypy_cache .ruff_cache site docs/reference/openapi.json docs/reference/generated

# Regenerate the India Rails milepost map from real geography (output is committed).
seeds-india: setup
	$(BIN)/python -m pip install --quiet -c constraints.txt -e '.[mapgen]'
	$(BIN)/python seeds/india_rails/build_map.py
