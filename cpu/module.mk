# cpu/module.mk - the microarchitecture table is generated from cpu/uarch.csv (with its
# notes and events/sets.csv, the one list of event-set keys) at build time.  The generated C file
# is compiled like any other source (see GEN_C in the Makefile).
GEN_C += $(B)/gen/uarch_table.c

$(B)/gen/uarch_table.c: tools/gen_uarch.py tools/gen_events.py cpu/uarch.csv cpu/uarch_notes.csv cpu/uarch_features.csv \
			events/sets.csv
	@mkdir -p $(@D)
	@$(if $(Q),echo '  GEN    $@')
	$(Q)$(PYTHON) tools/gen_uarch.py --out $@
