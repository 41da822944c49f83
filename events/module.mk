# events/module.mk - the event tables are generated from events/*.csv at build time.
# The generated C file is compiled like any other source (see GEN_C in the Makefile).
GEN_C += $(B)/gen/events_table.c

$(B)/gen/events_table.c: tools/gen_events.py $(wildcard events/*.csv)
	@mkdir -p $(@D)
	@$(if $(Q),echo '  GEN    $@')
	$(Q)$(PYTHON) tools/gen_events.py --out $@
