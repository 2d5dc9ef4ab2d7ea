# ci/ci.mk: campaign, pre-merge check and corpus hygiene (ci/README.md).
# Included by the top-level Makefile (-include ci/ci.mk), which sets and
# exports JAVA_HOME. The scripts build what they need themselves (make all,
# make fuzz-build), so these targets have no prerequisites.
#
#   make campaign [PRESET=smoke] [DURATION=8h] [OUT=DIR] [JOBS=N] [HOSTS=FILE]
#                 [KNOWN=FILE] [SEED=N] [RESUME=1]
#   make premerge [BASE=JDK [CONFIRM=N]] [BUDGET=10m] [KNOWN=known-buckets.txt] [OUT=DIR] [JUNIT=FILE]
#                 [SUMMARY=FILE] [HOSTS=FILE] [PRESET=premerge] [SEED=N]
#   make corpus-merge CAMPAIGN=DIR [DEST=corpus/merged]
#   make check-report-screenshot REPORT=DIR/report.html
#
# Only values given on the command line or in the environment are passed on:
# fuzz/fuzz.mk gives DURATION, JOBS and OUT defaults of its own that must not
# turn into a campaign's budget. BUDGET and DURATION mean the same.

_ci_default_goal := $(.DEFAULT_GOAL)
_ci_given = $(if $(filter command line environment environment override,$(origin $(1))),$($(1)))
_ci_budget = $(or $(call _ci_given,BUDGET),$(call _ci_given,DURATION))
PRESET ?= smoke

CAMPAIGN_FLAGS = --preset $(PRESET) --java-home "$(JAVA_HOME)" \
	$(if $(_ci_budget),--budget $(_ci_budget)) \
	$(if $(call _ci_given,OUT),--out "$(OUT)") \
	$(if $(call _ci_given,JOBS),-j $(JOBS)) \
	$(if $(call _ci_given,HOSTS),--sshloginfile "$(HOSTS)") \
	$(if $(call _ci_given,KNOWN),--known "$(KNOWN)") \
	$(if $(call _ci_given,SEED),--seed $(SEED))

.PHONY: campaign premerge corpus-merge check-report-screenshot
campaign:
ifeq ($(RESUME),1)
	ci/campaign --resume --out "$(OUT)" $(if $(_ci_budget),--budget $(_ci_budget)) $(if $(call _ci_given,JOBS),-j $(JOBS))
else
	ci/campaign $(CAMPAIGN_FLAGS)
endif

# ci/premerge exits 0 (nothing new), 1 (new bucket), 2 (usage) or 3 (could not run);
# make turns any failure into its own status 2, so CI should call
# ci/premerge directly when it needs the difference.
# (The options in a variable: make echoes a recipe line as written, and one
# continued over empty $(if)s printed a lone backslash per option not given.)
PREMERGE_FLAGS = --java-home "$(JAVA_HOME)" \
	$(if $(call _ci_given,BASE),--base "$(BASE)") \
	$(if $(call _ci_given,CONFIRM),--confirm "$(CONFIRM)") \
	$(if $(_ci_budget),--budget $(_ci_budget)) \
	$(if $(call _ci_given,KNOWN),--known "$(KNOWN)") \
	$(if $(call _ci_given,OUT),--out "$(OUT)") \
	$(if $(call _ci_given,JUNIT),--junit "$(JUNIT)") \
	$(if $(call _ci_given,SUMMARY),--summary "$(SUMMARY)") \
	$(if $(call _ci_given,HOSTS),--sshloginfile "$(HOSTS)") \
	$(if $(call _ci_given,JOBS),-j $(JOBS)) \
	$(if $(call _ci_given,PRESET),--preset "$(PRESET)") \
	$(if $(call _ci_given,SEED),--seed $(SEED))
premerge:
	ci/premerge $(PREMERGE_FLAGS)

corpus-merge:
	@test -n "$(CAMPAIGN)" || { echo "corpus-merge: set CAMPAIGN=DIR (a campaign's --out)" >&2; exit 2; }
	ci/corpus-merge $(if $(DEST),--out "$(DEST)") $(CAMPAIGN)

check-report-screenshot:
	ci/check-report-screenshot $(REPORT)

# This file must not change the top-level Makefile's default goal.
.DEFAULT_GOAL := $(_ci_default_goal)
