# gputop-decode: a hand-written Makefile. `make` builds, `make test` runs every test,
# `make SANITIZER=address|undefined|thread` builds instrumented, `make V=1` shows commands.

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
DATADIR ?= $(PREFIX)/share/gputop-decode
MANDIR ?= $(PREFIX)/share/man/man1

CC ?= cc
PKG_CONFIG ?= pkg-config
CURSES_CFLAGS := $(shell $(PKG_CONFIG) --cflags ncursesw 2>/dev/null)
CURSES_LIBS := $(shell $(PKG_CONFIG) --libs ncursesw 2>/dev/null || echo -lncursesw)
OPENCL_CFLAGS := $(shell $(PKG_CONFIG) --cflags OpenCL 2>/dev/null)
OPENCL_LIBS := $(shell $(PKG_CONFIG) --libs OpenCL 2>/dev/null || echo -lOpenCL)

WARN := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wformat=2 -Wvla
CFLAGS ?= -O2 -g
ALL_CFLAGS := -std=c11 -D_GNU_SOURCE -Iinclude $(WARN) $(CURSES_CFLAGS) $(OPENCL_CFLAGS) $(CFLAGS)
LDLIBS := $(CURSES_LIBS) $(OPENCL_LIBS) -lrt -lm -lpthread

ifeq ($(SANITIZER),)
else ifeq ($(SANITIZER),address)
  SAN := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
else ifeq ($(SANITIZER),undefined)
  SAN := -fsanitize=undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
else ifeq ($(SANITIZER),thread)
  SAN := -fsanitize=thread
else
  $(error SANITIZER must be address, undefined or thread, not '$(SANITIZER)')
endif
ALL_CFLAGS += $(SAN)
LDFLAGS += $(SAN)

ifeq ($(V),1)
  Q :=
  say :=
else
  Q := @
  say = @printf '  %-6s %s\n' $(1) $(2);
endif

# Build outputs of each configuration live apart, so sanitized and plain objects never mix.
BUILD := build/$(if $(SANITIZER),$(SANITIZER),plain)
BIN := gputop-decode

SRCS := $(wildcard src/*.c)
OBJS := $(SRCS:src/%.c=$(BUILD)/%.o)
LIB_OBJS := $(filter-out $(BUILD)/main.o,$(OBJS))
UNIT_SRCS := $(wildcard tests/unit/*.c)
UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=$(BUILD)/tests/%)

.PHONY: all deps run test check unit bench lint format format-check fuzz install uninstall clean
all: $(BIN)

# Installs what is missing (apt-get, as root), then builds and opens the dashboard.
run: deps
	@$(MAKE) --no-print-directory $(BIN)
	./$(BIN)

deps:
	@tools/deps.sh

# The binary is relinked whenever the configuration changes (the stamp names it).
CONFIG_STAMP := build/.config-$(if $(SANITIZER),$(SANITIZER),plain)
$(CONFIG_STAMP):
	@mkdir -p build && rm -f build/.config-* && touch $@

$(BIN): $(OBJS) $(CONFIG_STAMP)
	$(call say,LINK,$@)
	$(Q)$(CC) $(LDFLAGS) -o $@ $(OBJS) $(LDLIBS)

$(BUILD)/%.o: src/%.c
	@mkdir -p $(@D)
	$(call say,CC,$<)
	$(Q)$(CC) $(ALL_CFLAGS) -MMD -MP -c -o $@ $<

$(BUILD)/tests/%: tests/unit/%.c $(LIB_OBJS) tests/unit/tap.h
	@mkdir -p $(@D)
	$(call say,CC,$<)
	$(Q)$(CC) $(ALL_CFLAGS) -Itests/unit -MMD -MP -o $@ $< $(LIB_OBJS) $(LDFLAGS) $(LDLIBS)

-include $(OBJS:.o=.d) $(UNIT_BINS:=.d)

# Every test: unit binaries and integration scripts, each in its own process with a timeout.
# The last line is the summary "N passed, N failed". Missing packages are installed first;
# the build then runs in a fresh make so pkg-config sees them.
test: deps
	@$(MAKE) --no-print-directory check

check: $(BIN) $(UNIT_BINS)
	@BUILD=$(BUILD) SANITIZER=$(SANITIZER) tests/run.sh $(UNIT_BINS) $(sort $(wildcard tests/integration/test_*.sh))

unit: $(UNIT_BINS)
	@BUILD=$(BUILD) tests/run.sh $(UNIT_BINS)

bench: $(BIN)
	@bench/run.sh

lint:
	@tools/lint.sh

format:
	clang-format -i src/*.c include/gputop/*.h tests/unit/*.c tests/unit/*.h

format-check:
	clang-format --dry-run --Werror src/*.c include/gputop/*.h tests/unit/*.c tests/unit/*.h

install: $(BIN)
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(DATADIR)/kernels $(DESTDIR)$(MANDIR)
	install -m 755 $(BIN) $(DESTDIR)$(BINDIR)/$(BIN)
	install -m 644 kernels/decode.cl $(DESTDIR)$(DATADIR)/kernels/decode.cl
	install -m 644 doc/gputop-decode.1 $(DESTDIR)$(MANDIR)/gputop-decode.1

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/$(BIN) $(DESTDIR)$(DATADIR)/kernels/decode.cl $(DESTDIR)$(MANDIR)/gputop-decode.1
	-rmdir $(DESTDIR)$(DATADIR)/kernels $(DESTDIR)$(DATADIR)

clean:
	rm -rf build $(BIN)
