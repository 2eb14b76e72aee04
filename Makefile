# sxk — build, run, test. `make run` and `make test` work on a fresh Debian/Ubuntu machine:
# they install libedit-dev, libcurl4-openssl-dev and libjq-dev (the headers sxk's C shims build with) with apt-get when
# missing; `make test` also nginx-light, openssl, zsh, fish, groff-base, util-linux and bash, which the tests run.
SWIFT        ?= swift
PREFIX       ?= /usr/local
BUILD_FLAGS  ?=
TEST_FLAGS   ?=

.PHONY: all deps test-deps release-deps build release run sandbox test test-long completions install install-files bench clean

all: build

# The system libraries sxk needs besides the Swift toolchain: libedit (line editor), libcurl
# (the HTTP engine), libjq (--jq): their headers to build, the libraries when first used (dlopen).
# `make test` also needs nginx and openssl (the https test fixture).
deps:
	@curl_h="$$(ls /usr/include/curl/curl.h /usr/include/*/curl/curl.h 2>/dev/null | head -n 1)"; \
	if ! [ -e /usr/include/histedit.h ] || [ -z "$$curl_h" ]; then \
		echo "installing libedit-dev and libcurl4-openssl-dev (needs root)…"; \
		SUDO=""; [ "$$(id -u)" -ne 0 ] && SUDO="sudo"; \
		$$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq libedit-dev libcurl4-openssl-dev; \
	fi
	@if ! [ -e /usr/include/jq.h ]; then \
		echo "installing libjq-dev for --jq (needs root)…"; \
		SUDO=""; [ "$$(id -u)" -ne 0 ] && SUDO="sudo"; \
		$$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq libjq-dev; \
	fi

# What the tests run besides sxk: nginx and openssl (the https fixture), zsh and fish (they load the
# completion scripts), groff (renders the man page), util-linux (flock(1) holds the state lock from a
# second process; prlimit caps memory and file size), bash (job control for the Ctrl-Z test) and curl
# (runs the command `curl N` prints). Tests that chown a file to another user need root and skip,
# saying so, for an unprivileged developer; CI runs as root.
test-deps: deps
	@if ! [ -x /usr/sbin/nginx ] || ! command -v openssl >/dev/null 2>&1 || ! [ -x /usr/bin/zsh ] || ! [ -x /usr/bin/fish ] || ! [ -x /usr/bin/groff ] || ! [ -x /usr/bin/flock ] || ! [ -x /bin/bash ] || ! [ -x /usr/bin/curl ]; then \
		echo "installing nginx-light, openssl, zsh, fish, groff-base, util-linux, bash and curl for the tests (needs root)…"; \
		SUDO=""; [ "$$(id -u)" -ne 0 ] && SUDO="sudo"; \
		$$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq nginx-light openssl zsh fish groff-base util-linux bash curl; \
	fi

build: deps
	$(SWIFT) build $(BUILD_FLAGS)

# Release links the Swift runtime and FoundationEssentials statically (starts ~5 ms faster). Where the
# toolchain has lld and glibc reads packed relative relocations (DT_RELR, glibc 2.36+), it also links
# with them: the position-independent binary's 1.8 MB of relocation records, read at every start,
# become 15 KB, so each process maps ~2.5 MB less and starts sooner; the binary stays a PIE (ASLR).
# Such a binary needs glibc 2.36 or later where it runs: `make release RELR=0` builds one for older systems.
# No `$ORIGIN` run path (`--disable-local-rpath`): the static binary needs nothing from its own folder, so
# a library planted beside an installed sxk is never loaded, and the loader stops probing that folder.
# `=`, not `:=`: the probe runs only when `release` uses it, not on every `make`.
RELR         ?= auto
RELR_FLAGS = $(if $(filter 0 no off,$(RELR)),,$(shell \
	lld="$$(dirname "$$(readlink -f "$$(command -v $(SWIFT) 2>/dev/null || echo /nonexistent)")")/ld.lld"; \
	v="$$(getconf GNU_LIBC_VERSION 2>/dev/null | sed -n 's/^glibc 2\.\([0-9]*\).*/\1/p')"; \
	if [ -x "$$lld" ] && [ -n "$$v" ] && [ "$$v" -ge 36 ]; then \
		echo "-Xswiftc -use-ld=lld -Xlinker -z -Xlinker pack-relative-relocs"; fi))

# The C++ runtime the Swift runtime needs is linked statically as well: libstdc++ and libgcc's unwinder
# (libgcc_eh, what `-static-libgcc` links), both from the GCC the toolchain's clang uses. Dynamic, the
# loader mapped and relocated libstdc++ and libgcc_s at every start (≈ 0.6–1 ms); no library sxk loads
# later (libcurl and its ~30, libedit, libjq) uses either. The toolchain's link line asks for `-lstdc++`
# and `-lgcc_s`, so a folder holding only the static archives under those names comes first in the
# library path. `make release STATIC_CXX=0` links them dynamically; so does a machine without the archives.
STATIC_CXX   ?= auto
STATIC_CXX_DIR = $(CURDIR)/.build/static-cxx
STATIC_CXX_FLAGS = $(if $(filter 0 no off,$(STATIC_CXX)),,$(shell \
	cc="$$(dirname "$$(readlink -f "$$(command -v $(SWIFT) 2>/dev/null || echo /nonexistent)")")/clang"; \
	cxx="$$("$$cc" -print-file-name=libstdc++.a 2>/dev/null)"; eh="$$("$$cc" -print-file-name=libgcc_eh.a 2>/dev/null)"; \
	if [ -f "$$cxx" ] && [ -f "$$eh" ]; then mkdir -p "$(STATIC_CXX_DIR)" \
		&& ln -sf "$$cxx" "$(STATIC_CXX_DIR)/libstdc++.a" && ln -sf "$$eh" "$(STATIC_CXX_DIR)/libgcc_s.a" \
		&& echo "-Xswiftc '-L$(STATIC_CXX_DIR)'"; fi))

# The two products only: the test-support target imports XCTest, which a release toolchain build lacks.
release: deps
	$(SWIFT) build -c release --static-swift-stdlib --disable-local-rpath $(RELR_FLAGS) $(STATIC_CXX_FLAGS) $(BUILD_FLAGS) --product sxk
	$(SWIFT) build -c release --static-swift-stdlib --disable-local-rpath $(RELR_FLAGS) $(STATIC_CXX_FLAGS) $(BUILD_FLAGS) --product sxk-sandbox

# Kept for scripts that call it: libcurl's development files are part of `deps` now.
release-deps: deps

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

# Regenerates the files made from the command specs: completions/, the man page man/sxk.1 and the
# command table in README.md, between its two `<!-- commands` / `<!-- end of commands` lines (a test
# fails when they differ).
completions: build
	@bin="$$($(SWIFT) build $(BUILD_FLAGS) --show-bin-path)/sxk"; \
	"$$bin" completion bash > completions/sxk.bash; \
	"$$bin" completion zsh > completions/_sxk; \
	"$$bin" completion fish > completions/sxk.fish; \
	mkdir -p man && "$$bin" man > man/sxk.1; \
	"$$bin" man readme > README.md.table && \
	awk 'FNR == NR { table = table $$0 "\n"; next } \
	     /^<!-- end of commands/ { skip = 0 } !skip { print } \
	     /^<!-- commands:/ { printf "%s", table; skip = 1 }' README.md.table README.md > README.md.new && \
	mv README.md.new README.md; rm -f README.md.table

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
