# Stress workloads: Java scenarios, our WhiteBox binding and the JNI helper library.
# Included by the top-level Makefile, which defines JAVA_HOME, BUILD, CC and WARN.

STRESS_DIR   := $(patsubst %/,%,$(dir $(lastword $(MAKEFILE_LIST))))
STRESS_JAVAC := $(JAVA_HOME)/bin/javac
STRESS_JAR   := $(JAVA_HOME)/bin/jar
# --release 11 keeps the classes loadable by every JDK the framework targets (11+).
STRESS_JFLAGS := --release 11 -encoding UTF-8 -Xlint:all -Werror

STRESS_SRCS    := $(shell find $(STRESS_DIR)/java -name '*.java' 2>/dev/null)
STRESS_WB_SRCS := $(shell find $(STRESS_DIR)/wb -name '*.java' 2>/dev/null)

.PHONY: stress
stress: $(BUILD)/stress/classes.stamp $(BUILD)/stress/wb.jar $(BUILD)/lib/libstressnative.so \
        $(BUILD)/stress/redefine-agent.jar

# The WhiteBox binding is built apart from the main classes: it only works from the boot class
# path, and the scenarios reach it by reflection. javac -h emits the JNI header the C file
# includes, so a Java/C signature mismatch fails the build instead of linking at run time.
$(BUILD)/stress/classes.stamp: $(STRESS_SRCS) $(STRESS_DIR)/stress.mk
	rm -rf $(BUILD)/stress/classes $(BUILD)/stress/include
	mkdir -p $(BUILD)/stress/classes $(BUILD)/stress/include
	$(STRESS_JAVAC) $(STRESS_JFLAGS) -d $(BUILD)/stress/classes -h $(BUILD)/stress/include $(STRESS_SRCS)
	touch $@

$(BUILD)/stress/wb.jar: $(STRESS_WB_SRCS) $(STRESS_DIR)/stress.mk
	rm -rf $(BUILD)/stress/wb-classes
	mkdir -p $(BUILD)/stress/wb-classes
	$(STRESS_JAVAC) $(STRESS_JFLAGS) -d $(BUILD)/stress/wb-classes $(STRESS_WB_SRCS)
	$(STRESS_JAR) --create --file $@ -C $(BUILD)/stress/wb-classes .

$(BUILD)/lib/libstressnative.so: $(STRESS_DIR)/native/stress_native.c $(BUILD)/stress/classes.stamp
	mkdir -p $(BUILD)/lib
	$(CC) -std=c11 $(WARN) -O2 -g -fPIC -shared \
	    -I$(JAVA_HOME)/include -I$(JAVA_HOME)/include/linux -I$(BUILD)/stress/include \
	    -o $@ $(STRESS_DIR)/native/stress_native.c

# The redefine scenario's java.lang.instrument agent: a manifest naming InstrumentationHolder.
# The class itself is loaded from build/stress/classes (first on the class path), the jar only
# makes the VM call its premain with redefinition allowed.
$(BUILD)/stress/redefine-agent.jar: $(BUILD)/stress/classes.stamp $(STRESS_DIR)/stress.mk
	printf 'Premain-Class: asgstfuzz.stress.InstrumentationHolder\nCan-Redefine-Classes: true\n' \
	    > $(BUILD)/stress/redefine-agent.mf
	$(STRESS_JAR) --create --file $@ --manifest $(BUILD)/stress/redefine-agent.mf \
	    -C $(BUILD)/stress/classes asgstfuzz/stress/InstrumentationHolder.class
