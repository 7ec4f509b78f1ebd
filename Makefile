# gputop-decode: a hand-written Makefile. `make` builds, `make test` runs every test,
# `make SANITIZER=address|undefined|thread` builds instrumented, `make V=1` shows commands.

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
DATADIR ?= $(PREFIX)/share/gputop-decode
MANDIR ?= $(PREFIX)/share/man/man1
LIBDIR ?= $(PREFIX)/lib/gputop-decode

# CC is make's own (cc unless the command line or the environment says otherwise).
PKG_CONFIG ?= pkg-config
CURSES_CFLAGS := $(shell $(PKG_CONFIG) --cflags ncursesw 2>/dev/null)
CURSES_LIBS := $(shell $(PKG_CONFIG) --libs ncursesw 2>/dev/null || echo -lncursesw)
OPENCL_CFLAGS := $(shell $(PKG_CONFIG) --cflags OpenCL 2>/dev/null)
OPENCL_LIBS := $(shell $(PKG_CONFIG) --libs OpenCL 2>/dev/null || echo -lOpenCL)
MHD_CFLAGS := $(shell $(PKG_CONFIG) --cflags libmicrohttpd 2>/dev/null)
MHD_LIBS := $(shell $(PKG_CONFIG) --libs libmicrohttpd 2>/dev/null || echo -lmicrohttpd)
INIH_CFLAGS := $(shell $(PKG_CONFIG) --cflags inih 2>/dev/null)
INIH_LIBS := $(shell $(PKG_CONFIG) --libs inih 2>/dev/null || echo -linih)

WARN := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wformat=2 -Wvla
CFLAGS ?= -O2 -g
ALL_CFLAGS := -std=c11 -D_GNU_SOURCE -Iinclude -Isrc $(WARN) $(CURSES_CFLAGS) $(OPENCL_CFLAGS) $(MHD_CFLAGS) \
	$(INIH_CFLAGS) $(CFLAGS)
LDLIBS := $(CURSES_LIBS) $(OPENCL_LIBS) $(MHD_LIBS) $(INIH_LIBS) -lrt -lm -lpthread

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

# Every .c under src/, folders included; objects mirror the tree. The archive holds all but
# main.o: a unit test links against it, so the linker takes only the objects that test needs,
# and --as-needed drops the libraries none of them call.
SRCS := $(sort $(shell find src -name '*.c' -not -path 'src/observe/*'))
OBJS := $(SRCS:src/%.c=$(BUILD)/%.o)
LIB := $(BUILD)/libgputop.a
LIB_OBJS := $(filter-out $(BUILD)/main.o,$(OBJS))
UNIT_SRCS := $(wildcard tests/unit/*.c)
UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=$(BUILD)/tests/%)
# The fixture programs the integration scripts observe (tests/fixtures/*.c), and the scripts.
FIXTURE_SRCS := $(wildcard tests/fixtures/*.c)
FIXTURES := $(FIXTURE_SRCS:tests/fixtures/%.c=$(BUILD)/fixtures/%)
IT_SCRIPTS := $(sort $(wildcard tests/integration/test_*.sh))
# The fake libnvidia-ml.so.1 the tests name through GPUTOP_DECODE_NVML (tests/fake/fake_nvml.c):
# whole, as an older driver's, and lacking a function every sample needs.
FAKE_NVML := $(BUILD)/fake/nvml-full.so $(BUILD)/fake/nvml-old.so $(BUILD)/fake/nvml-nosym.so
OBSLIB := libgputop-observe.so
OBS_SRCS := $(sort $(wildcard src/observe/*.c)) src/ring/writer.c src/ring/wire.c src/common.c src/proc.c src/spec.c src/measure/timebase.c
OBS_OBJS := $(OBS_SRCS:src/%.c=build/observe/%.o)
OBS_CFLAGS := -std=c11 -D_GNU_SOURCE -Iinclude -Isrc $(WARN) $(OPENCL_CFLAGS) $(CFLAGS) -fPIC -fvisibility=hidden

.PHONY: all deps run test check unit fixtures bench lint format format-check fuzz install uninstall clean
all: $(BIN) $(OBSLIB) $(BUILD)/bench/seed_replica

# Installs what is missing (apt-get, as root), then builds and opens the dashboard.
run: deps
	@$(MAKE) --no-print-directory $(BIN)
	./$(BIN)

deps:
	@tools/deps.sh

# Settings stamps: each holds the settings its outputs were built with and is rewritten only
# when they change, so a new CC, CFLAGS or SANITIZER rebuilds exactly what it affects: the
# objects of this configuration, and the binary at the top, which every configuration shares.
update_stamp = $(shell mkdir -p $(dir $(1)) && printf '%s\n' '$(2)' | cmp -s - $(1) || printf '%s\n' '$(2)' >$(1))
OBJ_STAMP := $(BUILD)/.settings
BIN_STAMP := build/.bin-settings
ifeq ($(filter clean format format-check lint,$(MAKECMDGOALS)),)
  $(call update_stamp,$(OBJ_STAMP),$(CC) $(ALL_CFLAGS))
  $(call update_stamp,$(BIN_STAMP),$(BUILD) $(CC) $(LDFLAGS) $(LDLIBS))
endif

$(BIN): $(OBJS) $(BIN_STAMP)
	$(call say,LINK,$@)
	$(Q)$(CC) $(LDFLAGS) -o $@ $(OBJS) $(LDLIBS)

$(BUILD)/%.o: src/%.c $(OBJ_STAMP)
	@mkdir -p $(@D)
	$(call say,CC,$<)
	$(Q)$(CC) $(ALL_CFLAGS) -MMD -MP -c -o $@ $<

# libgputop-observe.so, loaded into programs the tool observes (doc/observe.md): src/observe/ and
# the segment's writer, position-independent, every symbol hidden but the OpenCL entry points it
# wraps. Never sanitized (an instrumented library cannot load into an uninstrumented program)
# and never linked with libOpenCL: it finds the loader's functions at run time. It sits next to
# the binary, where the tool looks first.

build/observe/%.o: src/%.c $(OBJ_STAMP)
	@mkdir -p $(@D)
	$(call say,CC,$<)
	$(Q)$(CC) $(OBS_CFLAGS) -MMD -MP -c -o $@ $<

$(OBSLIB): $(OBS_OBJS)
	$(call say,LINK,$@)
	$(Q)$(CC) -shared -Wl,-z,defs -o $@ $(OBS_OBJS) -ldl -lpthread -lrt

$(LIB): $(LIB_OBJS)
	$(call say,AR,$@)
	$(Q)rm -f $@ && $(AR) rcs $@ $(LIB_OBJS)

$(BUILD)/tests/%: tests/unit/%.c $(LIB) tests/unit/tap.h $(OBJ_STAMP)
	@mkdir -p $(@D)
	$(call say,CC,$<)
	$(Q)$(CC) $(ALL_CFLAGS) -Itests/unit -MMD -MP -o $@ $< $(LIB) $(LDFLAGS) -Wl,--as-needed $(LDLIBS)

-include $(OBJS:.o=.d) $(UNIT_BINS:=.d) $(OBS_OBJS:.o=.d)

# Every test: unit binaries and integration scripts, each in its own process with a timeout and
# its own TMPDIR, as many at once as there are cores (TEST_JOBS=N says otherwise), the longest
# first; the output in this order. The last line is the summary "N passed, N failed". Missing
# packages are installed first; the build then runs in a fresh make so pkg-config sees them.
test: deps
	@$(MAKE) --no-print-directory check

check: $(BIN) $(OBSLIB) $(UNIT_BINS) $(FIXTURES) $(FAKE_NVML)
	@BUILD=$(BUILD) SANITIZER=$(SANITIZER) tests/run.sh $(UNIT_BINS) $(IT_SCRIPTS)

# The fast tier, no OpenCL device needed by the scripts: the unit binaries and the integration
# scripts tagged "# tier: fast", up to where they need the device (tests/run.sh --tier fast).
unit: $(BIN) $(OBSLIB) $(UNIT_BINS) $(FIXTURES) $(FAKE_NVML)
	@BUILD=$(BUILD) SANITIZER=$(SANITIZER) tests/run.sh --tier fast $(UNIT_BINS) $(IT_SCRIPTS)

# The fixtures are plain OpenCL programs, never sanitized: libgputop-observe.so, which is not
# either, loads into them (doc/observe.md).
fixtures: $(FIXTURES) $(FAKE_NVML)

$(BUILD)/fixtures/%: tests/fixtures/%.c $(OBJ_STAMP)
	@mkdir -p $(@D)
	$(call say,CC,$<)
	$(Q)$(CC) -std=c11 -D_GNU_SOURCE $(WARN) $(OPENCL_CFLAGS) $(CFLAGS) -o $@ $< $(OPENCL_LIBS) -lpthread

# The fake libnvidia-ml.so.1 (FAKE_NVML, with the fixtures above), never sanitized, as the real
# library is not.
FAKE_DEFS_old := -DFAKE_OLD
FAKE_DEFS_nosym := -DFAKE_LACKS_UTIL

$(BUILD)/fake/nvml-%.so: tests/fake/fake_nvml.c $(OBJ_STAMP)
	@mkdir -p $(@D)
	$(call say,CC,$@)
	$(Q)$(CC) -std=c11 -D_GNU_SOURCE $(WARN) $(CFLAGS) -fPIC -shared -fvisibility=hidden $(FAKE_DEFS_$*) -o $@ $<

# `make bench GPU=P:D` adds, on a GPU machine, the table of every arrangement against the ceiling.
bench: $(BIN) $(BUILD)/bench/ref_loop $(BUILD)/bench/seed_replica $(BUILD)/bench/bench_core $(BUILD)/bench/observe_call
	@BUILD=$(BUILD) bench/run.sh
	@if [ -n "$(GPU)" ]; then \
		bench/gpu_bench.sh ./$(BIN) $(BUILD)/bench $(GPU) $(BUILD)/bench-gpu && \
		bench/bench_table.py $(BUILD)/bench-gpu; fi

# The core micro-benchmarks, linked against the archive like a unit test (the generator they
# time is src/rng.c's).
$(BUILD)/bench/bench_core: bench/bench_core.c $(LIB) $(OBJ_STAMP)
	@mkdir -p $(@D)
	$(call say,CC,$<)
	$(Q)$(CC) $(ALL_CFLAGS) -o $@ $< $(LIB) $(LDFLAGS) -Wl,--as-needed $(LDLIBS)

# What the observation library adds to a call (bench/observe_call.c): the program linked against
# the library, then against a fake runtime whose calls return at once (bench/fake_cl.c).
$(BUILD)/bench/libfakecl.so: bench/fake_cl.c $(OBJ_STAMP)
	@mkdir -p $(@D)
	$(call say,CC,$<)
	$(Q)$(CC) -std=c11 $(WARN) $(OPENCL_CFLAGS) $(CFLAGS) -shared -fPIC -o $@ $<

$(BUILD)/bench/observe_call: bench/observe_call.c $(BUILD)/bench/libfakecl.so $(OBSLIB)
	$(call say,CC,$<)
	$(Q)$(CC) -std=c11 -D_GNU_SOURCE $(WARN) $(OPENCL_CFLAGS) $(CFLAGS) -o $@ $< -Wl,--no-as-needed \
		-L. -lgputop-observe -L$(BUILD)/bench -lfakecl -Wl,-rpath,$(CURDIR) -Wl,-rpath,$(CURDIR)/$(BUILD)/bench -ldl

# The plain reference loops that GPU figures are ratios to (the back-to-back and pipelined loops,
# the replica of the original experiment, which is also the C program to observe on machines
# without PyOpenCL: doc/observe.md): OpenCL only, none of the tool's code.
$(BUILD)/bench/ref_loop $(BUILD)/bench/seed_replica: $(BUILD)/bench/%: bench/%.c bench/plain_cl.h $(OBJ_STAMP)
	@mkdir -p $(@D)
	$(call say,CC,$<)
	$(Q)$(CC) -std=c11 -D_GNU_SOURCE $(WARN) $(OPENCL_CFLAGS) $(CFLAGS) -o $@ $< $(OPENCL_LIBS) -lm -lpthread

# libFuzzer harnesses (clang): `make fuzz FUZZ_SECONDS=30` builds them into build/fuzz and runs
# each for that long from the seeds in fuzz/corpus/; new inputs and any crash stay in build/fuzz.
FUZZ_CC ?= clang
FUZZ_SECONDS ?= 30
FUZZ_DIR := build/fuzz
FUZZ_CFLAGS := -std=c11 -D_GNU_SOURCE -Iinclude -Isrc $(WARN) -g -O1 \
	-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
FUZZ_RING_SRCS := fuzz/fuzz_ring.c src/ring/wire.c src/ring/writer.c src/ring/reader.c src/common.c src/proc.c src/measure/stats.c
# The options harness links the log's field tables too: --fields is checked while parsing.
FUZZ_OPTS_SRCS := fuzz/fuzz_opts.c $(wildcard src/opts/*.c src/opts/*.h) src/near.c src/spec.c src/kargs.c src/rng.c src/rng_tables.c src/rng_numpy.c src/common.c \
	src/output/sink.c src/output/rows.c src/output/format.c src/output/outq.c src/ring/wire.c src/ring/reader.c \
	src/proc.c src/sig.c src/measure/collect.c src/measure/collect_count.c src/measure/stats.c src/measure/diagnose.c \
	src/measure/ceiling.c src/measure/figures.c src/measure/figures_read.c
FUZZ_ENV := ASAN_OPTIONS=detect_leaks=1:allow_user_segv_handler=1 UBSAN_OPTIONS=print_stacktrace=1

$(FUZZ_DIR)/fuzz_ring: $(FUZZ_RING_SRCS) $(wildcard include/gputop/*.h src/*/*.h)
$(FUZZ_DIR)/fuzz_opts: $(FUZZ_OPTS_SRCS) $(wildcard include/gputop/*.h src/*/*.h)
$(FUZZ_DIR)/fuzz_ring $(FUZZ_DIR)/fuzz_opts:
	@mkdir -p $(@D)
	$(call say,FUZZCC,$@)
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ $(filter %.c,$^) -lrt -lm

fuzz: $(FUZZ_DIR)/fuzz_ring $(FUZZ_DIR)/fuzz_opts
	@for h in ring opts; do \
		mkdir -p $(FUZZ_DIR)/corpus-$$h; \
		printf '  %-6s %s\n' FUZZ "$$h for $(FUZZ_SECONDS) s"; \
		$(FUZZ_ENV) $(FUZZ_DIR)/fuzz_$$h -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 \
			-artifact_prefix=$(FUZZ_DIR)/ $(FUZZ_DIR)/corpus-$$h fuzz/corpus/$$h \
			>$(FUZZ_DIR)/fuzz_$$h.log 2>&1 || { tail -n 60 $(FUZZ_DIR)/fuzz_$$h.log; exit 1; }; \
		grep -E '^stat::number_of_executed_units|^#[0-9]+.*DONE' $(FUZZ_DIR)/fuzz_$$h.log | sed 's/^/         /'; \
	done

# The structure check first (tools/structure.py: include layers, include/gputop/'s contracts,
# file and function sizes; python3 alone), then cppcheck and clang-tidy. `make lint
# LINT=structure` runs the structure check alone.
lint:
	@tools/lint.sh $(LINT)

format:
	clang-format -i $(SRCS) $(wildcard src/observe/*.c src/*.h src/*/*.h) include/gputop/*.h tests/unit/*.c tests/unit/*.h fuzz/*.c bench/*.c

format-check:
	clang-format --dry-run --Werror $(SRCS) $(wildcard src/observe/*.c src/*.h src/*/*.h) include/gputop/*.h tests/unit/*.c tests/unit/*.h fuzz/*.c bench/*.c

# Every file under kernels/ (subdirectories too) goes to $(DATADIR)/kernels, where the binary
# looks for them (from $(BINDIR): ../share/gputop-decode/kernels). uninstall removes exactly
# the files kernels/ holds, then the directories that are left empty.
install: $(BIN) $(OBSLIB) $(BUILD)/bench/seed_replica
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(DATADIR)/kernels $(DESTDIR)$(MANDIR) $(DESTDIR)$(LIBDIR)
	install -m 755 $(BIN) $(DESTDIR)$(BINDIR)/$(BIN)
	install -m 644 $(OBSLIB) $(DESTDIR)$(LIBDIR)/$(OBSLIB)
	find kernels -type f | while IFS= read -r f; do \
		install -D -m 644 "$$f" "$(DESTDIR)$(DATADIR)/$$f" || exit 1; done
	install -m 644 doc/gputop-decode.1 $(DESTDIR)$(MANDIR)/gputop-decode.1

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/$(BIN) $(DESTDIR)$(MANDIR)/gputop-decode.1 $(DESTDIR)$(LIBDIR)/$(OBSLIB)
	-rmdir $(DESTDIR)$(LIBDIR) 2>/dev/null; true
	find kernels -type f | while IFS= read -r f; do rm -f "$(DESTDIR)$(DATADIR)/$$f"; done
	find kernels -depth -type d | while IFS= read -r d; do rmdir "$(DESTDIR)$(DATADIR)/$$d" 2>/dev/null; done; true
	-rmdir $(DESTDIR)$(DATADIR) 2>/dev/null; true

clean:
	rm -rf build $(BIN) $(OBSLIB)
