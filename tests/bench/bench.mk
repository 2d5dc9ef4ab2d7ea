# tests/bench/bench.mk: what `make bench` (tests/bench/run) builds beyond
# `make all`. Included by the top-level Makefile.

# The overhead floor: the sampling agent's signalling with an empty handler.
$(BUILD)/tests/libfloor_agent.so: tests/bench/floor_agent.c | check-java
	@mkdir -p $(dir $@)
	$(CC) $(CORE_CFLAGS) -shared $< -lpthread -o $@
tests-build: $(BUILD)/tests/libfloor_agent.so
