# Star Fortune. The two commands of the quick start are `make run` and
# `make test`; each installs the Debian packages it needs first (once).

GO      ?= go
BIN     := bin/starfortune
DATA    ?=
RUNARGS := $(if $(DATA),--data $(DATA))
STATICCHECK := honnef.co/go/tools/cmd/staticcheck@v0.8.2
# no_emoji leaves out Fyne's colour emoji font: the game shows none, and Fyne
# would parse a copy of it for every text style (4 MB each). Tests build
# with the same tags as the game, plus ci for Fyne's test driver.
TAGS    := no_emoji

.PHONY: fleet-demo fleet-e2e fleet-soak fleet-scale run build deps deps-window test check-third-party verify-deploy unit smoke soak powercut bench package lint clean

## run: build the game with Fyne's OpenGL driver and open the window (demo wallet)
run: build
	./$(BIN) $(RUNARGS)

build: deps
	$(GO) build -tags $(TAGS) -buildvcs=auto -o $(BIN) .   # stamps the commit that version prints

deps:
	@./scripts/deps.sh

deps-window:
	@./scripts/deps.sh --window

## test: lint, the vendored Badger's and Fyne's check, the deployment files'
## check, the packages' tests under the race detector with Fyne's test
## driver (e2e/ starts the shipped binary, built once, and the terminal's
## session under Xvfb), then the real window under Xvfb
test: lint check-third-party verify-deploy unit smoke

## check-third-party: third_party/badger and third_party/fyne are upstream
## Badger and Fyne plus their .patch, nothing else
check-third-party: deps
	./scripts/check-third-party.sh

## verify-deploy: deploy/ checked without installing it: the terminal's system
## unit (systemd-analyze verify, exposure below 5.0 in systemd-analyze
## security), its session, PAM and Xorg files; the demo's user unit and
## autostart entry; the example settings
verify-deploy: deps-window
	./scripts/verify-deploy.sh

# The packages whose code runs goroutines of its own (engine, storage,
# journal, central, ui...) run under the race detector. e2e/ and cli/ run
# without it, beside them: e2e's tests drive the shipped binary (built as
# shipped, without it) in child processes, and cli's run commands one
# after the other on the engine, whose goroutines the engine's own tests
# race; instrumented, both spend their time hashing blocks (a block's
# Merkle tree takes five times the CPU under the race detector), and
# find nothing more. The FUSE layer e2e cuts the power with is raced in
# internal/powercut.
PLAIN_PKGS := ./cli/... ./e2e/...
unit: deps-window
	@set -e; $(GO) test -tags ci,$(TAGS) -timeout 20m $(PLAIN_PKGS) & plain=$$!; \
	race=0; $(GO) test -race -tags ci,$(TAGS) -timeout 20m $$($(GO) list ./... | grep -v -e '/cli$$' -e '/e2e') || race=$$?; \
	wait $$plain || { echo "FAIL: $(PLAIN_PKGS)"; exit 1; }; exit $$race
	cd third_party/fyne && $(GO) test -count 1 -run 'Damage|Painted|Merge' ./internal/driver/glfw   # our patch's repaint of what changed; not under -race, which would rebuild go-gl's C

## smoke: the real binary under Xvfb: play a unit with the keyboard, check the history
smoke: build deps-window
	./scripts/smoke.sh $(BIN)

## fleet-demo: a private PostgreSQL, an emission, two kiosk windows side by
## side selling from the same blocks and a terminal watching the fleet;
## Ctrl+C or closing a window stops it all
fleet-demo: build
	@./scripts/deps.sh --demo
	./scripts/fleet-demo.sh $(BIN)

## fleet-e2e: three kiosk processes sell a whole block through a central's
## packs (about 6 minutes on two cores; not part of make test); POOLER=N:
## through a PgBouncer of N server connections, each call proven
fleet-e2e: deps-window
	STARFORTUNE_FLEET_E2E=1 STARFORTUNE_FLEET_POOLER=$${POOLER:-0} $(GO) test -tags ci,$(TAGS) -timeout 20m -count 1 -run 'TestFleetThreeKiosksSellAWholeBlock' -v ./e2e/ | grep -E '^(ok|FAIL|---|    )'

## fleet-soak: K kiosk processes (K=20) sell a whole block through a
## central's packs while kiosks are SIGKILLed, their network cut and the
## PostgreSQL server killed; prints the figures (not part of make test);
## POOLER=N: through a PgBouncer of N server connections, each call proven
fleet-soak: deps-window
	STARFORTUNE_FLEET_SOAK=$${K:-20} STARFORTUNE_FLEET_POOLER=$${POOLER:-0} $(GO) test -tags ci,$(TAGS) -timeout 60m -count 1 -run 'TestFleetSoak' -v ./e2e/ | grep -E '^(FLEETSOAK|ok|FAIL|---|    )'

## fleet-scale: N simulated kiosks (KIOSKS=N, default 250) speak the kiosk
## protocol through a PgBouncer the test starts to a private PostgreSQL for
## DURATION seconds (90), each selling a unit every SELL_EVERY seconds (30) and
## pushing every PUSH_EVERY (30), and print BENCH lines (not part of make test)
fleet-scale: deps-window
	STARFORTUNE_FLEET_SCALE=$${KIOSKS:-250} STARFORTUNE_FLEET_SCALE_SECONDS=$${DURATION:-90} \
	STARFORTUNE_FLEET_SCALE_SELL_EVERY=$${SELL_EVERY:-30} STARFORTUNE_FLEET_SCALE_PUSH_EVERY=$${PUSH_EVERY:-30} $(GO) test -tags ci,$(TAGS) -timeout 60m -count 1 -run 'TestFleetScale$$' -v ./central/ | grep -E '^(BENCH|ok|FAIL|---|    )'

## soak: the random-kill test at length (100 SIGKILLs), not part of make test
soak: deps
	STARFORTUNE_SOAK_KILLS=$${KILLS:-100} $(GO) test -tags ci,$(TAGS) -run 'TestRandomKills' -count 1 -timeout 60m -v ./e2e/ | grep -E 'kills|^(ok|FAIL|---)'

## powercut: the power-cut test at length (100 cuts on a file system that
## loses what was not synced, see internal/powercut; CUTS=N for another
## count), not part of make test, which makes 10; prints the figures, and
## keeps each cut's log in bin/powercut.log
powercut: deps
	@mkdir -p bin
	@echo "$${CUTS:-100} power cuts (about 5 s each; log in bin/powercut.log)"
	@STARFORTUNE_POWERCUTS=$${CUTS:-100} $(GO) test -tags ci,$(TAGS) -run 'TestPowerCuts$$' -count 1 -timeout 90m -v ./e2e/ >bin/powercut.log 2>&1; \
	status=$$?; grep -E '^POWERCUT|^(ok|FAIL|--- )|_test.go:[0-9]+: [^rc]' bin/powercut.log; exit $$status

## bench: one line per budget, each against a baseline measured in the same
## run (about 7 minutes; not part of `make test`)
bench: build deps-window
	TAGS=$(TAGS) ./scripts/bench.sh $(BIN)

## package: the Linux bundle made by the fyne CLI (bin/package/), installed
## into a temporary home as a user would and launched under Xvfb
package: deps-window
	TAGS=$(TAGS) ./scripts/package.sh

## lint: formatting, vet and staticcheck
lint: deps
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); echo "gofmt needed"; exit 1; }
	$(GO) vet -tags ci,$(TAGS) ./...
	$(GO) run $(STATICCHECK) -tags ci,$(TAGS) ./...

clean:
	rm -rf bin
