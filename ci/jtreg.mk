# ci/jtreg.mk: the jtreg test group (test/jtreg/, see the README's "jtreg"
# section). Included by the top-level Makefile.
#
#   make jtreg [JDK=/path/to/jdk] [JTREG_TESTS=asgst_fuzz/SignalModeWalks.java]
#              [JTREG_SECONDS=15] [JTREG_KNOWN=FILE] [JTREG_OUT=DIR] [JTREG_OPTS=...]
#
# Runs the group against JDK (default JAVA_HOME) with the jtreg 7 that
# `make deps` installs (Debian's jtreg7, /usr/bin/jtreg), or JTREG=path.
JTREG ?= $(shell command -v jtreg 2>/dev/null || echo /usr/share/jtreg/bin/jtreg)
JDK ?= $(JAVA_HOME)
JTREG_TESTS ?= :asgst_fuzz
JTREG_SECONDS ?= 15
JTREG_OUT ?= $(BUILD)/jtreg

# The known-bad ASGST provider of tests/jtreg_group.t (tests/jvm/standin_crash.c).
$(BUILD)/tests/libstandin_crash.so: tests/jvm/standin_crash.c
	@mkdir -p $(dir $@)
	$(CC) $(TEST_CFLAGS) -O0 -shared $< -ldl -o $@
tests-build: $(BUILD)/tests/libstandin_crash.so

.PHONY: jtreg
jtreg: all
	@test -x "$(JTREG)" || { echo "jtreg: '$(JTREG)' not found: run 'make deps' (Debian package jtreg7) or set JTREG=" >&2; exit 2; }
	@test -x "$(JDK)/bin/java" || { echo "jtreg: JDK='$(JDK)' has no bin/java" >&2; exit 2; }
	"$(JTREG)" -jdk:"$(JDK)" -othervm -verbose:summary,fail -retain:fail \
	    -workDir:"$(JTREG_OUT)/work" -reportDir:"$(JTREG_OUT)/report" \
	    -e:ASGF_HOME="$(CURDIR)" -e:ASGF_SECONDS=$(JTREG_SECONDS) \
	    $(if $(JTREG_KNOWN),-e:ASGF_KNOWN="$(abspath $(JTREG_KNOWN))") \
	    $(JTREG_OPTS) -dir:test/jtreg $(JTREG_TESTS)
