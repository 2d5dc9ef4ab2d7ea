# The stress agent: build/lib/libasgfagent.so
AGENT_SRC := $(wildcard agents/*.c)
AGENT_LIB := $(BUILD)/lib/libasgfagent.so

# The oracle's excuse rules, built in as one C string literal.
$(BUILD)/gen/oracle_rules.inc: agents/oracle-rules.txt
	@mkdir -p $(dir $@)
	sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/"/' -e 's/$$/\\n"/' $< > $@

# The copy replaces the file by rename: JVMs still running (a campaign beside
# the build) keep the library they mapped; writing into it would corrupt them.
$(AGENT_LIB): $(AGENT_SRC) $(wildcard agents/*.h) $(BUILD)/gen/oracle_rules.inc $(CORE_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CORE_CFLAGS) -Iagents -I$(BUILD)/gen -shared $(AGENT_SRC) $(CORE_LIB) -ldl -lpthread -o $@
	$(if $(CAPSTONE_SO),cp -L $(CAPSTONE_SO) $(dir $@).capstone.tmp && mv -f $(dir $@).capstone.tmp $(dir $@)$(notdir $(CAPSTONE_SO)))

.PHONY: agent
agent: $(AGENT_LIB)

# The agent's option checker as a program (presets use it): build/bin/asgf-agent-options
# loads the agent library and calls its own parser.
$(BUILD)/bin/asgf-agent-options: agents/tools/check_options.c agents/agent_config.h $(AGENT_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CORE_CFLAGS) -Iagents $< -ldl -o $@

agent: $(BUILD)/bin/asgf-agent-options
