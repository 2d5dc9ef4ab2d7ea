# Fuzz harnesses (fuzz/README.md). Included by the top-level Makefile
# (-include fuzz/fuzz.mk), which defines JAVA_HOME, BUILD, WARN, ARCH and
# JNI_CFLAGS; the defaults below only matter when this file is used alone.
#
#   make fuzz-build                      all fuzz binaries, workload classes, encoded seeds
#   make fuzz-libfuzzer [DURATION=10m] [JOBS=1] [OUT=fuzz-out/libfuzzer] [ASAN=1]
#   make fuzz-afl       [DURATION=10m] [JOBS=1] [OUT=fuzz-out/afl]
#   make fuzz-seeds-gen                  record near-real seeds from a live workload
#   make fuzz-bench                      fuzz/bench (execs/s, time to first fault)

BUILD ?= build
WARN ?= -Wall -Wextra -Werror
ARCH ?= $(shell uname -m)
JNI_CFLAGS ?= -I$(JAVA_HOME)/include -I$(JAVA_HOME)/include/linux

FUZZ_CC ?= clang-16
AFL_CC ?= afl-clang-fast
FUZZ_B := $(BUILD)/fuzz
FUZZ_CFLAGS := -std=c11 -D_GNU_SOURCE -fno-omit-frame-pointer -O2 -g $(WARN) $(JNI_CFLAGS) -Isrc -Ifuzz
FUZZ_LIBJVM := $(JAVA_HOME)/lib/server
# RUNPATH (not RPATH): the build's JDK by default, LD_LIBRARY_PATH (set by
# the wrappers from $JAVA_HOME) can point the binaries at another one.
FUZZ_LIBS = -L$(FUZZ_LIBJVM) -Wl,--enable-new-dtags,-rpath,$(FUZZ_LIBJVM) -ljvm -ldl -lpthread

FUZZ_CORE_SRC := $(filter-out src/arch_%.c,$(wildcard src/*.c)) src/arch_$(ARCH).c
FUZZ_HARNESS_SRC := fuzz/harness.c fuzz/feedback.c fuzz/casefix.c fuzz/placement.c
FUZZ_HEADERS := $(wildcard src/*.h src/*.def fuzz/*.h)

# Two builds of the core and the harness: plain (libFuzzer, AFL++, replay,
# seed generator) and ASan. Neither carries coverage instrumentation: the
# fuzzers' feedback is the outcome features (fuzz/feedback.h).
# The ASan core keeps its locals on the thread's stack (no fake stack for
# use-after-return): a forged stack image must sit below the interrupted sp
# in the walked thread's own stack, or no stk case ever forges.
FUZZ_SAN_plain :=
FUZZ_SAN_asan := -fsanitize=address -fsanitize-address-use-after-return=never

define FUZZ_VARIANT
$(FUZZ_B)/core-$(1)/%.o: src/%.c $(FUZZ_HEADERS) fuzz/fuzz.mk
	@mkdir -p $$(dir $$@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) $(FUZZ_SAN_$(1)) -c $$< -o $$@
$(FUZZ_B)/core-$(1)/harness/%.o: fuzz/%.c $(FUZZ_HEADERS) fuzz/fuzz.mk
	@mkdir -p $$(dir $$@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) $(FUZZ_SAN_$(1)) -c $$< -o $$@
FUZZ_OBJ_$(1) := $(FUZZ_CORE_SRC:src/%.c=$(FUZZ_B)/core-$(1)/%.o) \
	$(FUZZ_HARNESS_SRC:fuzz/%.c=$(FUZZ_B)/core-$(1)/harness/%.o)
endef
$(foreach v,plain asan,$(eval $(call FUZZ_VARIANT,$(v))))

$(FUZZ_B)/asgf-libfuzzer: fuzz/libfuzzer.c $(FUZZ_OBJ_plain) $(FUZZ_HEADERS)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer $< $(FUZZ_OBJ_plain) $(FUZZ_LIBS) -o $@

$(FUZZ_B)/asgf-libfuzzer-asan: fuzz/libfuzzer.c $(FUZZ_OBJ_asan) $(FUZZ_HEADERS)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=address,fuzzer $< $(FUZZ_OBJ_asan) $(FUZZ_LIBS) -o $@

# afl-clang-fast (Debian's uses clang 14) instruments afl.c only.
$(FUZZ_B)/asgf-afl: fuzz/afl.c $(FUZZ_B)/core-plain/harness/afl_forkserver.o $(FUZZ_OBJ_plain) $(FUZZ_HEADERS)
	AFL_QUIET=1 $(AFL_CC) $(FUZZ_CFLAGS) $< $(FUZZ_B)/core-plain/harness/afl_forkserver.o $(FUZZ_OBJ_plain) $(FUZZ_LIBS) -o $@

# The same fork server with no JVM: the protocol's ceiling (fuzz/afl_noop.c).
$(FUZZ_B)/asgf-afl-noop: fuzz/afl_noop.c $(FUZZ_B)/core-plain/harness/afl_forkserver.o fuzz/afl_forkserver.h
	AFL_QUIET=1 $(AFL_CC) $(FUZZ_CFLAGS) $< $(FUZZ_B)/core-plain/harness/afl_forkserver.o -o $@

# How far apart two CPUs are now: a cache line's round trip (fuzz/line_trip.c).
$(FUZZ_B)/asgf-line-trip: fuzz/line_trip.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -pthread $< -o $@

# AFL++ mutator library: structure-aware edits and the fix-up that keeps
# mutations valid cases (fuzz/afl_post.c). It decodes, edits and encodes
# cases, so it carries the case-format and generator sources (no JVM).
FUZZ_CASE_SRC := src/case.c src/case_text.c src/arch.c src/casegen.c $(wildcard src/case_rec_*.c)
$(FUZZ_B)/libasgf-afl-post.so: fuzz/afl_post.c fuzz/casefix.c $(FUZZ_CASE_SRC) $(FUZZ_HEADERS)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fPIC -shared fuzz/afl_post.c fuzz/casefix.c $(FUZZ_CASE_SRC) -Wl,--no-undefined -o $@

$(FUZZ_B)/asgf-replay: fuzz/replay.c $(FUZZ_OBJ_plain) $(FUZZ_HEADERS)
	$(FUZZ_CC) $(FUZZ_CFLAGS) $< $(FUZZ_OBJ_plain) $(FUZZ_LIBS) -o $@

$(FUZZ_B)/asgf-seedgen: corpus/gen/seedgen.c $(FUZZ_OBJ_plain) $(FUZZ_HEADERS)
	$(FUZZ_CC) $(FUZZ_CFLAGS) $< $(FUZZ_OBJ_plain) $(FUZZ_LIBS) -o $@

# The Java workload, found by the binaries next to themselves (classes/).
FUZZ_JAVA_SRC := $(shell find fuzz/java -name '*.java' 2>/dev/null)
$(FUZZ_B)/classes.stamp: $(FUZZ_JAVA_SRC) fuzz/fuzz.mk
	rm -rf $(FUZZ_B)/classes
	@mkdir -p $(FUZZ_B)/classes
	$(JAVA_HOME)/bin/javac --release 11 -Xlint:all -Werror -d $(FUZZ_B)/classes $(FUZZ_JAVA_SRC)
	touch $@

# Hand-written text seeds, encoded to the binary form the fuzzers read.
FUZZ_SEED_TXT := $(wildcard corpus/seeds/*.txt)
FUZZ_SEED_BIN := $(FUZZ_SEED_TXT:corpus/seeds/%.txt=$(FUZZ_B)/seeds/%.bin)
$(FUZZ_B)/seeds/%.bin: corpus/seeds/%.txt $(BUILD)/bin/casetool
	@mkdir -p $(dir $@)
	$(BUILD)/bin/casetool encode $< -o $@

FUZZ_BINS := $(FUZZ_B)/asgf-libfuzzer $(FUZZ_B)/asgf-libfuzzer-asan $(FUZZ_B)/asgf-afl $(FUZZ_B)/asgf-afl-noop $(FUZZ_B)/asgf-line-trip $(FUZZ_B)/libasgf-afl-post.so \
	$(FUZZ_B)/asgf-replay $(FUZZ_B)/asgf-seedgen

DURATION ?= 10m
JOBS ?= 1

.PHONY: fuzz-build fuzz-libfuzzer fuzz-afl fuzz-seeds-gen fuzz-bench
fuzz-build: $(FUZZ_BINS) $(FUZZ_B)/classes.stamp $(FUZZ_SEED_BIN)

fuzz-libfuzzer: fuzz-build
	fuzz/run-libfuzzer $(if $(filter 1,$(ASAN)),--asan) --duration $(DURATION) --jobs $(JOBS) \
	    --out $(or $(OUT),fuzz-out/libfuzzer$(if $(filter 1,$(ASAN)),-asan))

fuzz-afl: fuzz-build
	fuzz/run-afl --duration $(DURATION) --jobs $(JOBS) --out $(or $(OUT),fuzz-out/afl)

fuzz-seeds-gen: fuzz-build
	$(FUZZ_B)/asgf-seedgen --out $(FUZZ_B)/seeds-gen

fuzz-bench: fuzz-build
	fuzz/bench
