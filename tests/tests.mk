# Test programs. C unit tests link the core; JVM tests build an agent.
TEST_CFLAGS := $(CORE_CFLAGS) -Itests/c
TEST_LIBS := $(CORE_LIB) -ldl -lpthread

$(BUILD)/tests/%_test: tests/c/%_test.c tests/c/tap.h $(CORE_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(TEST_CFLAGS) $< $(TEST_LIBS) -o $@

$(BUILD)/tests/guard_bench: tests/c/guard_bench.c $(CORE_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(TEST_CFLAGS) $< $(TEST_LIBS) -o $@

$(BUILD)/tests/signal_floor: tests/c/signal_floor.c
	@mkdir -p $(dir $@)
	$(CC) $(TEST_CFLAGS) $< -lpthread -o $@

$(BUILD)/tests/asgst_abi_print: tests/c/asgst_abi_print.c $(CORE_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(TEST_CFLAGS) $< $(TEST_LIBS) -o $@

$(BUILD)/tests/fake_proto_test: tests/c/fake_proto_test.c tests/c/tap.h src/asgst.h
	@mkdir -p $(dir $@)
	$(CC) $(TEST_CFLAGS) $< -ldl -o $@

# Two libraries alike but for their build-ids (tests/core_regions_race.t).
$(BUILD)/tests/libtwin_a.so $(BUILD)/tests/libtwin_b.so: $(BUILD)/tests/libtwin_%.so: tests/c/twin_lib.c
	@mkdir -p $(dir $@)
	$(CC) $(TEST_CFLAGS) -shared -fPIC -Wl,--build-id -DTWIN=$(if $(filter a,$*),1,2) $< -o $@

TEST_BINS := $(BUILD)/tests/fnv_test $(BUILD)/tests/glob_test $(BUILD)/tests/regions_race_test $(BUILD)/tests/libraries_list_test \
	$(BUILD)/tests/libtwin_a.so $(BUILD)/tests/libtwin_b.so $(BUILD)/tests/fake_proto_test $(BUILD)/tests/target_test $(BUILD)/tests/asgst_abi_print $(BUILD)/tests/case_test $(BUILD)/tests/casegen_test $(BUILD)/tests/guard_test $(BUILD)/tests/stack_watch_test $(BUILD)/tests/code_cache_test $(BUILD)/tests/mutate_guard_test $(BUILD)/tests/guard_bench $(BUILD)/tests/signal_floor


# Live-JVM probe agent, fake ASGST providers and the Java side of the tests.
$(BUILD)/tests/libprobe.so: tests/jvm/probe_agent.c $(CORE_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(TEST_CFLAGS) -shared $< $(TEST_LIBS) -o $@

$(BUILD)/tests/libfake_asgst.so: tests/jvm/fake_asgst.c
	@mkdir -p $(dir $@)
	$(CC) $(TEST_CFLAGS) -shared -DPREFIX=ASGST_ $< -o $@

$(BUILD)/tests/libfake_jfrll.so: tests/jvm/fake_asgst.c
	@mkdir -p $(dir $@)
	$(CC) $(TEST_CFLAGS) -shared -DPREFIX=JFRLL_ $< -o $@

$(BUILD)/tests/libfake_asgst_older.so: tests/jvm/fake_asgst.c
	@mkdir -p $(dir $@)
	$(CC) $(TEST_CFLAGS) -shared -DPREFIX=ASGST_ -DOLDER_SHAPE $< -o $@

# The whole-API stand-in: ASGST_ with every entry point, and the newest
# snapshot's shape (JFRLL_, without the two optional ones).
$(BUILD)/tests/libfake_proto.so: tests/jvm/fake_proto.c tests/jvm/fault_knob.h src/asgst.h
	@mkdir -p $(dir $@)
	$(CC) $(TEST_CFLAGS) -shared -DPREFIX=ASGST_ $< -lpthread -o $@

$(BUILD)/tests/libfake_proto_newest.so: tests/jvm/fake_proto.c tests/jvm/fault_knob.h src/asgst.h
	@mkdir -p $(dir $@)
	$(CC) $(TEST_CFLAGS) -shared -DPREFIX=JFRLL_ -DNEWEST $< -lpthread -o $@

# ... and with three planted lifecycle bugs (tests/asgst_lifecycle.t).
$(BUILD)/tests/libfake_proto_bugs.so: tests/jvm/fake_proto.c tests/jvm/fault_knob.h src/asgst.h
	@mkdir -p $(dir $@)
	$(CC) $(TEST_CFLAGS) -shared -DPREFIX=ASGST_ -DPLANTED_BUGS $< -lpthread -o $@

# ... with one bug each in ResizeQueue, MoveFrameMark and DeregisterQueue
# during the queue's own processing (ci/premerge with it preloaded, docs/figures.md), and
# with every planted bug (one bucket per bug, in the closing measurements).
$(BUILD)/tests/libfake_proto_procbugs.so: tests/jvm/fake_proto.c tests/jvm/fault_knob.h src/asgst.h
	@mkdir -p $(dir $@)
	$(CC) $(TEST_CFLAGS) -shared -DPREFIX=ASGST_ -DPROCESSING_BUGS $< -lpthread -o $@

$(BUILD)/tests/libfake_proto_allbugs.so: tests/jvm/fake_proto.c tests/jvm/fault_knob.h src/asgst.h
	@mkdir -p $(dir $@)
	$(CC) $(TEST_CFLAGS) -shared -DPREFIX=ASGST_ -DPLANTED_BUGS -DPROCESSING_BUGS -DITERATOR_BUGS $< -lpthread -o $@

$(BUILD)/tests/jvm/Probe.class: tests/jvm/Probe.java | check-java
	@mkdir -p $(dir $@)
	$(JAVA_HOME)/bin/javac --release 11 -d $(dir $@) $<

TEST_BINS += $(BUILD)/tests/libprobe.so $(BUILD)/tests/libfake_asgst.so $(BUILD)/tests/libfake_jfrll.so \
	$(BUILD)/tests/libfake_asgst_older.so \
	$(BUILD)/tests/libfake_proto.so $(BUILD)/tests/libfake_proto_newest.so $(BUILD)/tests/libfake_proto_bugs.so \
	$(BUILD)/tests/libfake_proto_procbugs.so $(BUILD)/tests/libfake_proto_allbugs.so \
	$(BUILD)/tests/jvm/Probe.class $(BUILD)/bin/casetool

# A stand-in VM build with one walker bug reachable from three entry points
# (and a variant with the bug in an entry itself), and a driver that calls
# them under crash protection: triage_entries.t, campaign_base.t.
$(BUILD)/tests/libstandin_onebug.so: tests/jvm/standin_onebug.c
	@mkdir -p $(dir $@)
	$(CC) $(TEST_CFLAGS) -O1 -fno-omit-frame-pointer -fno-optimize-sibling-calls -shared $< -o $@

$(BUILD)/tests/libstandin_inentry.so: tests/jvm/standin_onebug.c
	@mkdir -p $(dir $@)
	$(CC) $(TEST_CFLAGS) -O1 -fno-omit-frame-pointer -fno-optimize-sibling-calls -shared -DBUG_IN_ENTRY $< -o $@

$(BUILD)/tests/libstandin_memcpy.so: tests/jvm/standin_onebug.c
	@mkdir -p $(dir $@)
	$(CC) $(TEST_CFLAGS) -O1 -fno-omit-frame-pointer -fno-optimize-sibling-calls -fno-builtin -shared -DBUG_IN_MEMCPY $< -o $@

$(BUILD)/tests/standin_driver: tests/c/standin_driver.c $(CORE_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(TEST_CFLAGS) $< $(TEST_LIBS) -o $@

TEST_BINS += $(BUILD)/tests/libstandin_onebug.so $(BUILD)/tests/libstandin_inentry.so \
	$(BUILD)/tests/libstandin_memcpy.so $(BUILD)/tests/standin_driver

# A full disk for one process, without mounting one (tests/fault_*.t).
$(BUILD)/tests/libenospc.so: tests/c/enospc_shim.c
	@mkdir -p $(dir $@)
	$(CC) $(TEST_CFLAGS) -shared $< -ldl -o $@

TEST_BINS += $(BUILD)/tests/libenospc.so

# A walker that reads return addresses off the stack (tests/forged_stack.t).
$(BUILD)/tests/libstandin_stackread.so: tests/jvm/standin_stackread.c
	@mkdir -p $(dir $@)
	$(CC) $(TEST_CFLAGS) -O1 -fno-omit-frame-pointer -shared $< -o $@

TEST_BINS += $(BUILD)/tests/libstandin_stackread.so

# A walker that stores into the walked thread's frames (tests/live_store.t).
$(BUILD)/tests/libstandin_anchorstore.so: tests/jvm/standin_anchorstore.c
	@mkdir -p $(dir $@)
	$(CC) $(TEST_CFLAGS) -shared $< -o $@

TEST_BINS += $(BUILD)/tests/libstandin_anchorstore.so

# Addresses for synthetic crash records: a fault site, its callers, and a
# copy of the sigreturn trampoline (tests/triage_boundary.t).
$(BUILD)/tests/libtrampoline_module.so: tests/jvm/trampoline_module.c
	@mkdir -p $(dir $@)
	$(CC) $(TEST_CFLAGS) -shared $< -o $@

TEST_BINS += $(BUILD)/tests/libtrampoline_module.so

.PHONY: tests-build
# The oracle's lying walker (tests/jvm_oracle.t): preloaded and loaded as an agent.
$(BUILD)/tests/libstandin_liar.so: tests/jvm/standin_liar.c
	@mkdir -p $(dir $@)
	$(CC) $(TEST_CFLAGS) -shared $< -ldl -o $@

TEST_BINS += $(BUILD)/tests/libstandin_liar.so

tests-build: $(TEST_BINS)
