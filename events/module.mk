# events/module.mk - the event tables are generated from events/*.csv at build time.
# The generated C file is compiled like any other source (see GEN_C in the Makefile).
GEN_C += $(B)/gen/events_table.c

$(B)/gen/events_table.c: tools/gen_events.py tools/events_import/amd_rules.py tools/events_import/rows.py \
			 $(wildcard events/*.csv) $(wildcard events/vendor/*.csv)
	@mkdir -p $(@D)
	@$(if $(Q),echo '  GEN    $@')
	$(Q)$(PYTHON) tools/gen_events.py --out $@
