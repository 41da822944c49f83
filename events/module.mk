# events/module.mk - the event tables are generated from events/*.csv at build time.
# The generated C file is compiled like any other source (see GEN_C in the Makefile);
# the generated header (enum event_role, from events/roles.csv) comes before every object.
GEN_C += $(B)/gen/events_table.c
GEN_DEPS += $(B)/gen/event_roles.h

$(B)/gen/event_roles.h: tools/gen_events.py events/roles.csv
	@mkdir -p $(@D)
	@$(if $(Q),echo '  GEN    $@')
	$(Q)$(PYTHON) tools/gen_events.py --roles-header $@

$(B)/gen/events_table.c: tools/gen_events.py tools/events_pack.py tools/lzpack.py \
			 tools/events_import/amd_rules.py tools/events_import/rows.py \
			 $(wildcard events/*.csv) $(wildcard events/vendor/*.csv)
	@mkdir -p $(@D)
	@$(if $(Q),echo '  GEN    $@')
	$(Q)$(PYTHON) tools/gen_events.py --out $@
