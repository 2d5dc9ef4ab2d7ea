# asgst-fuzz: stress and fuzz the JVM's asynchronous stack walkers.
# `make deps` installs what the build needs (Debian/Ubuntu, as root).
# `make test` builds everything and runs tests/run (ends "N passed, N failed").

# JAVA_HOME from the environment, else the JDK of `java` on PATH. Empty
# counts as unset: `make test` on a fresh machine computes it again after
# ci/install-deps has installed a JDK.
ifeq ($(strip $(JAVA_HOME)),)
JAVA_HOME := $(shell j=$$(readlink -f "$$(command -v java)" 2>/dev/null); [ -n "$$j" ] && dirname "$$(dirname "$$j")")
endif
export JAVA_HOME
BUILD ?= build
CC ?= gcc
ifeq ($(origin CC),default)
CC := gcc
endif
WARN := -Wall -Wextra -Werror
ARCH := $(shell uname -m)
JNI_CFLAGS := -I$(JAVA_HOME)/include -I$(JAVA_HOME)/include/linux
CFLAGS ?= -O2 -g
CORE_CFLAGS := -std=c11 -D_GNU_SOURCE -fPIC -fno-omit-frame-pointer $(WARN) $(CFLAGS) $(JNI_CFLAGS) -Isrc
LIBJVM_DIR := $(JAVA_HOME)/lib/server

CORE_SRC := $(filter-out src/arch_%.c,$(wildcard src/*.c)) src/arch_$(ARCH).c
CORE_OBJ := $(CORE_SRC:src/%.c=$(BUILD)/core/%.o)
CORE_LIB := $(BUILD)/libasgf.a
# Walker coverage disassembles with capstone when its header is there, and
# opens the library at run time (src/walker_cov.c): a copy beside the agent
# serves JDKs run in another distribution's root. Looked up when a recipe
# runs, after make deps.
CAPSTONE_SO = $(if $(wildcard /usr/include/capstone/capstone.h),$(firstword $(wildcard /usr/lib/*/libcapstone.so.[0-9])))

.PHONY: all core test bench clean deps check-java
all: core $(BUILD)/bin/casetool agent tests-build stress $(if $(wildcard fuzz/fuzz.mk),fuzz-build)

check-java:
	@test -x "$(JAVA_HOME)/bin/java" || { echo "JAVA_HOME='$(JAVA_HOME)' has no bin/java: set JAVA_HOME to a JDK 11+ (of an OpenJDK build tree: its images/jdk) or run 'make deps'" >&2; exit 2; }
	@test -f "$(JAVA_HOME)/include/jni.h" || { echo "JAVA_HOME='$(JAVA_HOME)' is a JRE (no include/jni.h): a JDK is needed" >&2; exit 2; }
	@test ! -f "$(JAVA_HOME)/asgf-root" || { echo "JAVA_HOME='$(JAVA_HOME)' is a JDK in a root (ci/install-jdk): its libjvm needs the root's C library; build with a JDK of this system (make JAVA_HOME=/usr/lib/jvm/...), the tools run this one in its root" >&2; exit 2; }

core: check-java $(CORE_LIB)

$(BUILD)/core/%.o: src/%.c $(wildcard src/*.h src/*.def) | check-java
	@mkdir -p $(dir $@)
	$(CC) $(CORE_CFLAGS) -c $< -o $@

$(CORE_LIB): $(CORE_OBJ)
	ar rcs $@ $^

$(BUILD)/bin/casetool: corpus/casetool.c $(CORE_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CORE_CFLAGS) $< $(CORE_LIB) -ldl -lpthread -o $@

include agents/agent.mk
include tests/tests.mk
-include stress/stress.mk
-include fuzz/fuzz.mk
-include ci/ci.mk
-include ci/jtreg.mk
-include tests/bench/bench.mk

# make test installs what it needs (ci/install-deps is a no-op when all is there).
test: deps
	$(MAKE) all
	tests/run

bench: all
	tests/bench/run

# JDKS="11 21 25-debian": also Debian's other LTS VMs with their symbols (docs/jdks.md).
deps:
	ci/install-deps
	$(foreach j,$(JDKS),ci/install-jdk $(j) &&) true

clean:
	rm -rf $(BUILD)
