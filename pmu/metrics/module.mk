# pmu/metrics/module.mk - the top-down metric tables are generated from events/metrics/ at build time
# (tools/gen_metrics.py, which resolves each table's events against the event catalogue of events/,
# and stores the tables as one blob compressed by tools/lzpack.py).
GEN_C += $(B)/gen/metrics_table.c

$(B)/gen/metrics_table.c: tools/gen_metrics.py tools/gen_events.py tools/lzpack.py tools/events_import/vendor_csv.py \
			  $(wildcard events/metrics/*.csv) $(wildcard events/*.csv) $(wildcard events/vendor/*.csv)
	@mkdir -p $(@D)
	@$(if $(Q),echo '  GEN    $@')
	$(Q)$(PYTHON) tools/gen_metrics.py --out $@
