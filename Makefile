# sxk — build, run, test. `make run` and `make test` work on a fresh Debian/Ubuntu machine:
# they install libedit-dev (and pkg-config) with apt-get when missing; `make test` also zsh, fish
# and groff-base, which the tests run.
SWIFT        ?= swift
PREFIX       ?= /usr/local
BUILD_FLAGS  ?=
TEST_FLAGS   ?=

.PHONY: all deps test-deps release-deps build release run sandbox test test-long completions install install-files bench clean

all: build

# The only system library sxk needs besides the Swift toolchain.
deps:
	@if ! pkg-config --exists libedit 2>/dev/null || ! [ -e /usr/include/histedit.h ]; then \
		echo "installing libedit-dev (needs root)…"; \
		SUDO=""; [ "$$(id -u)" -ne 0 ] && SUDO="sudo"; \
		$$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq libedit-dev pkg-config; \
	fi

# What the tests run besides sxk: zsh and fish load the completion scripts, groff renders the man page.
test-deps: deps
	@if ! [ -x /usr/bin/zsh ] || ! [ -x /usr/bin/fish ] || ! [ -x /usr/bin/groff ]; then \
		echo "installing zsh, fish and groff-base for the tests (needs root)…"; \
		SUDO=""; [ "$$(id -u)" -ne 0 ] && SUDO="sudo"; \
		$$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq zsh fish groff-base; \
	fi

build: deps
	$(SWIFT) build $(BUILD_FLAGS)

# Release links the Swift runtime and Foundation statically (starts ~5 ms faster); FoundationNetworking's
# static library then needs libcurl's development files.
release: deps release-deps
	$(SWIFT) build -c release --static-swift-stdlib $(BUILD_FLAGS)

release-deps:
	@if ! [ -e /usr/include/x86_64-linux-gnu/curl/curl.h ] && ! [ -e /usr/include/curl/curl.h ]; then \
		echo "installing libcurl4-openssl-dev (needs root)…"; \
		SUDO=""; [ "$$(id -u)" -ne 0 ] && SUDO="sudo"; \
		$$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq libcurl4-openssl-dev; \
	fi

# Builds and opens the REPL on the embedded sandbox backend.
run: build
	@"$$($(SWIFT) build $(BUILD_FLAGS) --show-bin-path)/sxk" --sandbox

sandbox: build
	@"$$($(SWIFT) build $(BUILD_FLAGS) --show-bin-path)/sxk-sandbox"

# Builds and runs the whole test suite.
test: test-deps
	$(SWIFT) build --build-tests $(BUILD_FLAGS)
	$(SWIFT) test --skip-build $(TEST_FLAGS)

# The long reliability cases (kill -9 loop, fuzz, large bodies) on top of the normal suite.
test-long: test-deps
	$(SWIFT) build --build-tests $(BUILD_FLAGS)
	SXK_LONG_TESTS=1 $(SWIFT) test --skip-build $(TEST_FLAGS)

# Regenerates the files made from the command specs: completions/ and the man page man/sxk.1
# (a test fails when they differ).
completions: build
	@bin="$$($(SWIFT) build $(BUILD_FLAGS) --show-bin-path)/sxk"; \
	"$$bin" completion bash > completions/sxk.bash; \
	"$$bin" completion zsh > completions/_sxk; \
	"$$bin" completion fish > completions/sxk.fish; \
	mkdir -p man && "$$bin" man > man/sxk.1

# Release build, then the binaries, the man page and the completion scripts into PREFIX.
install: release
	@$(MAKE) --no-print-directory install-files BIN_DIR="$$($(SWIFT) build -c release --show-bin-path)"

# Copies already built binaries from BIN_DIR (no build); `make install` is the usual entry.
install-files:
	@test -n "$(BIN_DIR)" || { echo "install-files needs BIN_DIR=<folder with sxk and sxk-sandbox>"; exit 2; }
	install -d "$(PREFIX)/bin" "$(PREFIX)/share/man/man1" "$(PREFIX)/share/bash-completion/completions" "$(PREFIX)/share/zsh/site-functions" "$(PREFIX)/share/fish/vendor_completions.d"
	install -m 0755 "$(BIN_DIR)/sxk" "$(BIN_DIR)/sxk-sandbox" "$(PREFIX)/bin/"
	install -m 0644 man/sxk.1 "$(PREFIX)/share/man/man1/sxk.1"
	install -m 0644 completions/sxk.bash "$(PREFIX)/share/bash-completion/completions/sxk"
	install -m 0644 completions/_sxk "$(PREFIX)/share/zsh/site-functions/_sxk"
	install -m 0644 completions/sxk.fish "$(PREFIX)/share/fish/vendor_completions.d/sxk.fish"

bench: release
	benchmarks/run

clean:
	rm -rf .build
