# lib/module.mk - test vectors for lib/unlz.c: streams tools/lzpack.py makes at build time, so the
# C decoder is tested against the encoder the generators use (tests/unit/test_unlz.c).
$(B)/gen/unlz_vectors.h: tools/lzpack.py
	@mkdir -p $(@D)
	@$(if $(Q),echo '  GEN    $@')
	$(Q)$(PYTHON) tools/lzpack.py --vectors $@

$(B)/tests/test_unlz: $(B)/gen/unlz_vectors.h
