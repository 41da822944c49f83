# instr/module.mk - the instruction catalogue (issue 31; docs/instr.md) is compiled from the committed
# instr/forms.tsv.gz (tools/gen_isa.py writes it from XED's datafiles) into C at build time.  It is host-only
# generated C (HOST_GEN_C): pmuboot-host and the unit tests, never the image, whose room it would outgrow.
HOST_GEN_C += $(B)/gen/instr_forms.c

$(B)/gen/instr_forms.c: tools/gen_isa.py instr/forms.tsv.gz
	@mkdir -p $(@D)
	@$(if $(Q),echo '  GEN    $@')
	$(Q)$(PYTHON) tools/gen_isa.py --c $@ --tsv instr/forms.tsv.gz
