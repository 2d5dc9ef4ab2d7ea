# The stress agent: build/lib/libasgfagent.so
AGENT_SRC := $(wildcard agents/*.c)
AGENT_LIB := $(BUILD)/lib/libasgfagent.so

$(AGENT_LIB): $(AGENT_SRC) $(wildcard agents/*.h) $(CORE_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CORE_CFLAGS) -Iagents -shared $(AGENT_SRC) $(CORE_LIB) -ldl -lpthread -o $@

.PHONY: agent
agent: $(AGENT_LIB)
