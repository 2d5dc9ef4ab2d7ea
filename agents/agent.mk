# The stress agent: build/lib/libasgfagent.so
AGENT_SRC := $(wildcard agents/*.c)
AGENT_LIB := $(BUILD)/lib/libasgfagent.so

$(AGENT_LIB): $(AGENT_SRC) $(wildcard agents/*.h) $(CORE_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CORE_CFLAGS) -Iagents -shared $(AGENT_SRC) $(CORE_LIB) -ldl -lpthread -o $@

.PHONY: agent
agent: $(AGENT_LIB)

# The agent's option checker as a program (presets use it): build/bin/asgf-agent-options
# loads the agent library and calls its own parser.
$(BUILD)/bin/asgf-agent-options: agents/tools/check_options.c agents/agent.h $(AGENT_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CORE_CFLAGS) -Iagents $< -ldl -o $@

agent: $(BUILD)/bin/asgf-agent-options
