# pmu/module.mk - the rooms of pmu/ that add rules (generated sources) do so in their own module.mk.
include $(sort $(wildcard pmu/*/module.mk))
