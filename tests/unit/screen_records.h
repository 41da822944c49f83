/*
 * Real record lines for the screen's tests, copied whole from the output of this tree (record format 1):
 *
 *   QEMU_*   the image booted under QEMU/OVMF (TCG, one processor, no PMU):
 *            tools/run-qemu --opt bench=store_forward,ref --log serial.log
 *   HOST_*   pmuboot-host over a committed CPUID dump (the PMU model, a stuck counter injected) and a
 *            run with two bad arguments:
 *            pmuboot-host identify --cpuid-dump tests/fixtures/cpuid-real/GenuineIntel0050654_SkylakeXeon_CPUID9.txt
 *            pmuboot-host audit --cpuid-dump (the same) --inject stuck:1
 *            pmuboot-host run bogus=1 bench=nothing_such
 *            pmuboot-host run bench=user kernel.bad=0f0b (a user kernel that faults: not a run error)
 *   HOST2_*  pmuboot-host run bench=ref.add_chain cpus=all on a two-processor machine: each record of a
 *            pass carries `cpu`, and a pass record ends each.
 *
 * The image and pmuboot-host write records with the same code (lib/record.c), so the fields and their
 * nesting are those the screen is fed.  tests/fixtures/captures/qemu-usb-serial.log (an older boot,
 * read whole by test_screen_state.c) is the other real source.
 */
#ifndef PMUBOOT_TESTS_UNIT_SCREEN_RECORDS_H
#define PMUBOOT_TESTS_UNIT_SCREEN_RECORDS_H

#define QEMU_BEGIN \
	"@pmuboot {\"type\":\"begin\",\"format\":1,\"program\":\"image\",\"version\":\"0.1.0\",\"build\":\"af" \
	"0605f817b9\",\"serial\":{\"active\":true,\"how\":\"default COM1\",\"access\":\"io\",\"base\":\"0x3f8" \
	"\",\"baud\":115200},\"screen\":{\"mode\":\"readable\",\"consoles\":1,\"columns\":160,\"rows\":42,\"n" \
	"ote\":null,\"firmware_serial\":false},\"results\":{\"file\":\"\\\\pmuboot\\\\results-0001.jsonl\"},\"" \
	"config\":\"file \\\\EFI\\\\BOOT\\\\pmuboot.cfg\",\"upload\":null,\"options\":{\"serial\":\"auto\",\"" \
	"on_finish\":\"auto\",\"countdown\":\"auto\",\"qemu_exit\":\"auto\",\"screen\":\"readable\",\"verbose" \
	"\":\"off\",\"save\":\"on\",\"force_counters\":\"off\",\"selftest\":\"\",\"bench\":\"store_forward,re" \
	"f\",\"cpus\":\"types\",\"park\":\"auto\",\"pass_timeout_s\":\"1800\",\"reps\":\"11\",\"iterations\":" \
	"\"1000\",\"warmup\":\"3\",\"events\":\"\",\"freq\":\"keep\",\"boost\":\"keep\",\"arena_page\":\"both" \
	"\",\"ibs\":\"both\",\"ibs_period\":\"0x4000\",\"ibs_raw\":\"off\",\"kernels\":\"\",\"kernel_unroll\"" \
	":\"0\",\"kernel_timeout_ms\":\"1000\",\"kernel.NAME\":\"\",\"upload\":\"\",\"upload_token\":\"\"}}"

#define QEMU_PLATFORM \
	"@pmuboot {\"type\":\"platform\",\"firmware\":{\"vendor\":\"EDK II\",\"revision\":\"0x10000\",\"uefi\"" \
	":\"2.7\"},\"smbios\":{\"version\":\"2.8\",\"system_manufacturer\":\"QEMU\",\"system_product\":\"Stan" \
	"dard PC (Q35 + ICH9, 2009)\",\"system_version\":\"pc-q35-7.2\",\"system_serial\":null,\"system_uuid\"" \
	":null,\"bios_vendor\":\"EFI Development Kit II / OVMF\",\"bios_version\":\"0.0.0\",\"bios_date\":\"0" \
	"2/06/2015\"},\"network\":null,\"memory_bytes\":535953408,\"memory_mib\":511,\"cpus\":1,\"cpus_enable" \
	"d\":1,\"secure_boot\":false,\"setup_mode\":true}"

#define QEMU_CPU \
	"@pmuboot {\"type\":\"cpu\",\"vendor\":\"amd\",\"vendor_string\":\"AuthenticAMD\",\"signature\":\"0x6" \
	"0fb1\",\"family\":\"0xf\",\"model\":\"0x6b\",\"stepping\":1,\"brand\":\"QEMU TCG CPU version 2.5+\"," \
	"\"max_leaf\":\"0xd\",\"max_ext_leaf\":\"0x8000000a\",\"microcode\":\"0x1000065\",\"microcode_reason\"" \
	":null,\"hypervisor\":true,\"hypervisor_vendor\":\"TCGTCGTCGTCG\",\"hypervisor_name\":\"QEMU TCG\",\"" \
	"execution\":\"emulated\",\"hybrid\":false,\"core_type\":null,\"uarch\":\"K8 (Family 0Fh)\",\"uarch_k" \
	"ey\":\"k8\",\"event_set\":\"k8\",\"event_set_basis\":\"vendor\",\"event_set_note\":null,\"fallback\"" \
	":false,\"fallback_kind\":null,\"fallback_reason\":null,\"source\":\"cpuid\",\"xcr0\":\"0x7\",\"xcr0_" \
	"found\":\"0x1\",\"vector\":[\"avx\",\"avx2\"],\"vector_who\":\"pmuboot: enabled for the run, put bac" \
	"k at exit\"}"

#define QEMU_CACHE \
	"@pmuboot {\"type\":\"cache\",\"cpu\":{\"n\":null,\"apic_id\":0},\"caches_from\":\"cpuid_80000005h_6h" \
	"\",\"tlbs_from\":\"cpuid_80000005h_6h_19h\",\"why\":null,\"levels\":[{\"level\":1,\"type\":\"data\"," \
	"\"size\":65536,\"ways\":2,\"partitions\":1,\"line\":64,\"sets\":512,\"shared_by\":null,\"fully_assoc" \
	"iative\":false,\"inclusive\":null},{\"level\":1,\"type\":\"instruction\",\"size\":65536,\"ways\":2,\"" \
	"partitions\":1,\"line\":64,\"sets\":512,\"shared_by\":null,\"fully_associative\":false,\"inclusive\"" \
	":null},{\"level\":2,\"type\":\"unified\",\"size\":524288,\"ways\":16,\"partitions\":1,\"line\":64,\"" \
	"sets\":512,\"shared_by\":null,\"fully_associative\":false,\"inclusive\":null},{\"level\":3,\"type\":" \
	"\"unified\",\"size\":16777216,\"ways\":16,\"partitions\":1,\"line\":64,\"sets\":16384,\"shared_by\":" \
	"null,\"fully_associative\":false,\"inclusive\":null}],\"tlb\":[{\"level\":1,\"type\":\"data\",\"page" \
	"s\":[\"4k\"],\"entries\":255,\"ways\":1,\"fully_associative\":false,\"shared_by\":null},{\"level\":1" \
	",\"type\":\"data\",\"pages\":[\"2m\",\"4m\"],\"entries\":255,\"ways\":1,\"fully_associative\":false," \
	"\"shared_by\":null},{\"level\":1,\"type\":\"instruction\",\"pages\":[\"4k\"],\"entries\":255,\"ways\"" \
	":1,\"fully_associative\":false,\"shared_by\":null},{\"level\":1,\"type\":\"instruction\",\"pages\":[" \
	"\"2m\",\"4m\"],\"entries\":255,\"ways\":1,\"fully_associative\":false,\"shared_by\":null},{\"level\"" \
	":2,\"type\":\"data\",\"pages\":[\"4k\"],\"entries\":512,\"ways\":4,\"fully_associative\":false,\"sha" \
	"red_by\":null},{\"level\":2,\"type\":\"instruction\",\"pages\":[\"4k\"],\"entries\":512,\"ways\":4,\"" \
	"fully_associative\":false,\"shared_by\":null}],\"page_1g\":true,\"notes\":null}"

#define QEMU_TOPOLOGY \
	"@pmuboot {\"type\":\"topology\",\"source\":\"uefi mp services\",\"count\":1,\"listed\":1,\"summary\"" \
	":\"1 package x 1 core x 1 thread\",\"cpus\":[{\"n\":0,\"apic_id\":0,\"bsp\":true,\"enabled\":true,\"" \
	"healthy\":true,\"package\":0,\"die\":0,\"core\":0,\"thread\":0,\"probed\":true,\"core_type\":null,\"" \
	"uarch_key\":\"k8\"}],\"core_types\":[{\"core_type\":null,\"hybrid\":false,\"uarch\":\"K8 (Family 0Fh" \
	")\",\"uarch_key\":\"k8\",\"event_set\":\"k8\",\"fallback\":false,\"count\":1,\"first\":0,\"pmu_versi" \
	"on\":0,\"ibs\":false}],\"cpus_option\":\"types\",\"neighbours\":\"parked by pmuboot for each pass, i" \
	"nterrupts off (MWAIT on a flag where MONITOR exists, else HLT woken by an NMI, else PAUSE); the boot" \
	" processor waits with MWAIT or HLT; each pass record says what they did\",\"chosen_count\":1,\"chose" \
	"n\":[{\"n\":0,\"apic_id\":0}]}"

#define QEMU_TIMING \
	"@pmuboot {\"type\":\"timing\",\"tsc_hz\":2599988492,\"source\":\"acpi_pm_timer\",\"error_ppm\":1074," \
	"\"invariant_tsc\":false,\"emulated\":true,\"execution\":\"emulated\",\"core_per_tsc\":1.600,\"core_s" \
	"ource\":\"add_chain\",\"core_spread\":0.153,\"core_runs\":7,\"core_dropped\":0,\"core_note\":\"emula" \
	"ted (QEMU TCG): the clocks are the emulator's and say nothing about any silicon\",\"cpuid_15h\":null" \
	",\"cpuid_16h\":null,\"measured\":{\"against\":\"acpi_pm_timer\",\"hz\":2599988492,\"error_ppm\":1074" \
	",\"ref_hz\":3579545,\"runs\":3,\"spread_ppm\":98,\"how\":\"median of measurements\"},\"note\":\"no C" \
	"PUID frequency leaf: measured against acpi_pm_timer\",\"freq_option\":\"keep\",\"freq_asked\":null,\"" \
	"freq_control\":null,\"freq_why\":\"freq=keep and boost=keep: the clock is left as found\",\"freq_cho" \
	"sen\":null,\"freq_measured\":null,\"freq_measured_why\":\"nothing was pinned\",\"freq_held\":null,\"" \
	"boost\":{\"asked\":\"keep\",\"done\":\"unchanged\"}}"

#define QEMU_PMU \
	"@pmuboot {\"type\":\"pmu\",\"cpu\":{\"n\":0,\"apic_id\":0},\"kind\":\"none\",\"present\":false,\"abs" \
	"ent_reason\":\"the counters CPUID implies do not hold a value written to them: no working PMU (QEMU " \
	"TCG exposes none)\",\"note\":\"counter 0 (MSR 0xc0010004) read back 0x0 after 0x5a5aa5a5 was written" \
	"\",\"version\":0,\"gp\":{\"count\":4,\"width\":48},\"fixed\":{\"count\":0,\"width\":0,\"mask\":\"0x0" \
	"\",\"bitmap\":\"0x0\",\"assumed\":false,\"note\":null},\"arch_events\":null,\"any_thread_deprecated\"" \
	":false,\"arch_ext\":null,\"pdcm\":false,\"perf_capabilities\":null,\"perf_capabilities_reason\":\"CP" \
	"UID.1:ECX.PDCM is clear: no IA32_PERF_CAPABILITIES\",\"smi_count\":false,\"smi_count_reason\":\"MSR_" \
	"SMI_COUNT (0x34) is an Intel MSR\",\"aperf_mperf\":false,\"probed\":true,\"amd\":{\"core_ext\":false" \
	",\"nb_ext\":false,\"llc_ext\":false,\"perfmon_v2\":false,\"counters\":4,\"nb_counters\":0,\"umc_coun" \
	"ters\":0,\"lbr_v2\":false,\"lbr_depth\":0},\"ibs\":{\"present\":false,\"flags_valid\":false,\"flags\"" \
	":null,\"features\":[],\"note\":null,\"absent_reason\":\"CPUID 8000_0001h:ECX[10] (IBS) is clear\"},\"" \
	"count_backend\":\"msr\",\"counting\":false,\"counting_reason\":\"the counters CPUID implies do not h" \
	"old a value written to them: no working PMU (QEMU TCG exposes none)\"}"

#define QEMU_AUDIT_ABSENT \
	"@pmuboot {\"type\":\"audit\",\"cpu\":{\"n\":0,\"apic_id\":0},\"check\":\"instructions\",\"status\":\"" \
	"absent\",\"counter\":null,\"expected\":null,\"got\":null,\"why\":\"the counters CPUID implies do not" \
	" hold a value written to them: no working PMU (QEMU TCG exposes none)\",\"measured\":null,\"runner\"" \
	":\"ring 0\",\"disturbed\":0,\"retaken\":0,\"disturbance\":null}"

#define QEMU_IBS \
	"@pmuboot {\"type\":\"ibs\",\"cpu\":{\"n\":0,\"apic_id\":0},\"available\":false,\"reason\":\"CPUID 80" \
	"00_0001h:ECX[10] (IBS) is clear\"}"

#define QEMU_BENCH_SETUP \
	"@pmuboot {\"type\":\"bench_setup\",\"cpu\":{\"n\":0,\"apic_id\":0},\"variants\":17,\"iterations\":10" \
	"00,\"adaptive\":{\"on\":false,\"target_ticks\":0,\"budget_ms\":250,\"max_iterations\":16777216,\"why" \
	"_off\":\"under an emulator TSC ticks are not physical\"},\"reps\":11,\"warmup\":3,\"drop_budget\":22" \
	",\"unroll\":8,\"method\":\"differential_n_2n\",\"calibration\":{\"source\":\"harness_add_chain\",\"c" \
	"ore_per_tsc\":1.602,\"core_per_tsc_ppm\":1602564,\"spread\":0.003,\"per_variant\":false,\"settle_run" \
	"s\":1,\"timing_source\":\"add_chain\",\"timing_core_per_tsc\":1.600},\"tsc_hz\":2599988492,\"countin" \
	"g\":{\"available\":false,\"backend\":\"msr\",\"reason\":\"the counters CPUID implies do not hold a v" \
	"alue written to them: no working PMU (QEMU TCG exposes none)\"},\"aperf\":{\"available\":false,\"rea" \
	"son\":\"CPUID.06H:ECX[0] clear\"},\"ledger\":{\"sources\":[\"nmi\"],\"absent\":{\"smi_count\":\"no S" \
	"MI count MSR on AMD (the SMI event is used)\",\"smi_event\":\"event set k8 has no `smi` event\",\"fr" \
	"equency\":\"CPUID.06H:ECX[0] clear: no APERF/MPERF\",\"thermal\":\"AMD has no thermal log MSR (HTC s" \
	"tatus is in PCI/SMN space, not an MSR)\",\"package_thermal\":\"AMD has no thermal log MSR (HTC statu" \
	"s is in PCI/SMN space, not an MSR)\"},\"smi_event\":null,\"frequency_reference\":null,\"nmi_counts\"" \
	":\"unclaimed NMIs\",\"thermal_blind\":[],\"package_thermal_blind\":[],\"freeze_while_smm\":{\"suppor" \
	"ted\":false,\"reason\":\"no freeze-in-SMM control is documented for this vendor\",\"in_force\":null}" \
	",\"thermal_at_init\":null,\"package_thermal_at_init\":null,\"clears_logs\":true,\"frequency_toleranc" \
	"e\":0.010,\"smi_event_counted\":null,\"smi_event_reason\":null},\"event_set\":\"k8\",\"extra_events\"" \
	":[],\"arenas\":[{\"name\":\"4k\",\"page\":4096,\"how\":\"own page tables, 4 KiB pages\"},{\"name\":\"" \
	"2m\",\"page\":2097152,\"how\":\"own page tables, 2 MiB pages\"}],\"arena_problems\":null,\"ladder\":" \
	"{\"latency\":null,\"tlb\":null,\"bandwidth\":null},\"samples_in\":\"arena\",\"rules\":{\"outlier_z\"" \
	":3.500,\"mad_floor\":0.010,\"n_2n_slack\":0.100,\"chain_slack\":0.100,\"chain_slack_min\":0.005,\"ch" \
	"ain_slack_spreads\":2,\"clock_floor\":0.001,\"calib_adds\":65536,\"unstable_outliers\":0.250,\"unsta" \
	"ble_iqr\":0.100},\"emulated\":true,\"emulator\":true}"

#define QEMU_BENCH_ADD_CHAIN \
	"@pmuboot {\"type\":\"bench\",\"cpu\":{\"n\":0,\"apic_id\":0},\"kernel\":\"ref\",\"variant\":\"add_ch" \
	"ain\",\"control\":null,\"arena\":null,\"arena_page\":null,\"page_crossed\":null,\"page_offset\":\"0x" \
	"0\",\"iterations\":1000,\"iterations_min\":1000,\"iterations_capped\":false,\"sample_ticks\":616,\"p" \
	"ilot_ticks\":null,\"reps\":11,\"dropped\":0,\"disturbed\":{\"smi_count\":0,\"smi_event\":0,\"frequen" \
	"cy\":0,\"thermal\":0,\"package_thermal\":0,\"nmi\":0},\"retaken\":0,\"rejected\":{\"negative\":0,\"n" \
	"_2n\":0,\"below_chain\":0,\"clock\":0},\"exhausted\":false,\"interrupts_off\":true,\"ledger\":{\"sou" \
	"rces\":[\"nmi\"],\"absent\":{\"smi_count\":\"no SMI count MSR on AMD (the SMI event is used)\",\"smi" \
	"_event\":\"event set k8 has no `smi` event\",\"frequency\":\"CPUID.06H:ECX[0] clear: no APERF/MPERF\"" \
	",\"thermal\":\"AMD has no thermal log MSR (HTC status is in PCI/SMN space, not an MSR)\",\"package_t" \
	"hermal\":\"AMD has no thermal log MSR (HTC status is in PCI/SMN space, not an MSR)\"},\"smi_event\":" \
	"null,\"frequency_reference\":null,\"nmi_counts\":\"unclaimed NMIs\",\"thermal_blind\":[],\"package_t" \
	"hermal_blind\":[],\"freeze_while_smm\":{\"supported\":false,\"reason\":\"no freeze-in-SMM control is" \
	" documented for this vendor\",\"in_force\":null}},\"smi_event\":null,\"method\":\"differential_n_2n\"" \
	",\"chain_min\":null,\"chain_slack\":null,\"cycles\":{\"min\":0.942,\"median\":0.987,\"max\":1.093,\"" \
	"n\":11,\"q1\":0.976,\"q3\":1.045,\"mad\":0.032,\"outliers\":1,\"outlier_min\":1.199,\"outlier_max\":" \
	"1.199,\"rejected\":0,\"unstable\":null},\"cycles_invalid\":null,\"cycles_source\":\"tsc_calibrated\"" \
	",\"unstable\":null,\"calibration\":{\"source\":\"harness_add_chain\",\"core_per_tsc\":1.602,\"remeas" \
	"ured\":0,\"spread\":0.003,\"per_sample\":false,\"samples\":null},\"tsc\":{\"min\":0.588,\"median\":0" \
	".616,\"max\":0.682,\"n\":11,\"q1\":0.609,\"q3\":0.652,\"mad\":0.020,\"outliers\":1,\"outlier_min\":0" \
	".748,\"outlier_max\":0.748,\"rejected\":0,\"unstable\":null},\"instructions\":null,\"events\":{},\"i" \
	"nvalid\":{},\"passes\":1,\"penalty\":null,\"penalty_why\":\"no control\",\"expect\":\"reference\",\"" \
	"emulated\":true,\"body\":\"add rax, rcx\",\"problem\":null}"

#define QEMU_CHECK_ADD_CHAIN \
	"@pmuboot {\"type\":\"check\",\"cpu\":{\"n\":0,\"apic_id\":0},\"kernel\":\"ref\",\"variant\":\"add_ch" \
	"ain\",\"control\":null,\"arena\":null,\"what\":\"reference\",\"value\":0.987,\"expected_min\":0.950," \
	"\"expected_max\":1.050,\"reason\":\"timing under an emulator is meaningless\",\"status\":\"skip\"}"

#define QEMU_BENCH_LOAD_CHAIN \
	"@pmuboot {\"type\":\"bench\",\"cpu\":{\"n\":0,\"apic_id\":0},\"kernel\":\"ref\",\"variant\":\"load_c" \
	"hain\",\"control\":null,\"arena\":null,\"arena_page\":null,\"page_crossed\":null,\"page_offset\":\"0" \
	"x0\",\"iterations\":1000,\"iterations_min\":1000,\"iterations_capped\":false,\"sample_ticks\":1268,\"" \
	"pilot_ticks\":null,\"reps\":11,\"dropped\":0,\"disturbed\":{\"smi_count\":0,\"smi_event\":0,\"freque" \
	"ncy\":0,\"thermal\":0,\"package_thermal\":0,\"nmi\":0},\"retaken\":0,\"rejected\":{\"negative\":11,\"" \
	"n_2n\":1,\"below_chain\":0,\"clock\":0},\"exhausted\":false,\"interrupts_off\":true,\"ledger\":{\"so" \
	"urces\":[\"nmi\"],\"absent\":{\"smi_count\":\"no SMI count MSR on AMD (the SMI event is used)\",\"sm" \
	"i_event\":\"event set k8 has no `smi` event\",\"frequency\":\"CPUID.06H:ECX[0] clear: no APERF/MPERF" \
	"\",\"thermal\":\"AMD has no thermal log MSR (HTC status is in PCI/SMN space, not an MSR)\",\"package" \
	"_thermal\":\"AMD has no thermal log MSR (HTC status is in PCI/SMN space, not an MSR)\"},\"smi_event\"" \
	":null,\"frequency_reference\":null,\"nmi_counts\":\"unclaimed NMIs\",\"thermal_blind\":[],\"package_" \
	"thermal_blind\":[],\"freeze_while_smm\":{\"supported\":false,\"reason\":\"no freeze-in-SMM control i" \
	"s documented for this vendor\",\"in_force\":null}},\"smi_event\":null,\"method\":\"differential_n_2n" \
	"\",\"chain_min\":null,\"chain_slack\":null,\"cycles\":{\"min\":1.199,\"median\":2.032,\"max\":3.087," \
	"\"n\":11,\"q1\":1.718,\"q3\":2.905,\"mad\":0.676,\"outliers\":2,\"outlier_min\":14.035,\"outlier_max" \
	"\":14.042,\"rejected\":12,\"unstable\":\"spread\"},\"cycles_invalid\":null,\"cycles_source\":\"tsc_c" \
	"alibrated\",\"unstable\":\"spread\",\"calibration\":{\"source\":\"harness_add_chain\",\"core_per_tsc" \
	"\":1.602,\"remeasured\":0,\"spread\":0.003,\"per_sample\":false,\"samples\":null},\"tsc\":{\"min\":0" \
	".748,\"median\":1.268,\"max\":1.926,\"n\":11,\"q1\":1.072,\"q3\":1.813,\"mad\":0.422,\"outliers\":2," \
	"\"outlier_min\":8.758,\"outlier_max\":8.762,\"rejected\":12,\"unstable\":\"spread\"},\"instructions\"" \
	":null,\"events\":{},\"invalid\":{},\"passes\":1,\"penalty\":null,\"penalty_why\":\"no control\",\"ex" \
	"pect\":\"reference\",\"emulated\":true,\"body\":\"mov rax, [rax]\",\"problem\":null}"

#define QEMU_CHECK_LOAD_CHAIN \
	"@pmuboot {\"type\":\"check\",\"cpu\":{\"n\":0,\"apic_id\":0},\"kernel\":\"ref\",\"variant\":\"load_c" \
	"hain\",\"control\":null,\"arena\":null,\"what\":\"reference\",\"value\":2.032,\"expected_min\":2.000" \
	",\"expected_max\":8.000,\"reason\":\"timing under an emulator is meaningless\",\"status\":\"skip\"}"

#define QEMU_BENCH_FORWARD \
	"@pmuboot {\"type\":\"bench\",\"cpu\":{\"n\":0,\"apic_id\":0},\"kernel\":\"store_forward\",\"variant\"" \
	":\"forward\",\"control\":null,\"arena\":null,\"arena_page\":null,\"page_crossed\":null,\"page_offset" \
	"\":\"0x200\",\"iterations\":1000,\"iterations_min\":1000,\"iterations_capped\":false,\"sample_ticks\"" \
	":3172,\"pilot_ticks\":null,\"reps\":11,\"dropped\":0,\"disturbed\":{\"smi_count\":0,\"smi_event\":0," \
	"\"frequency\":0,\"thermal\":0,\"package_thermal\":0,\"nmi\":0},\"retaken\":0,\"rejected\":{\"negativ" \
	"e\":0,\"n_2n\":0,\"below_chain\":0,\"clock\":0},\"exhausted\":false,\"interrupts_off\":true,\"ledger" \
	"\":{\"sources\":[\"nmi\"],\"absent\":{\"smi_count\":\"no SMI count MSR on AMD (the SMI event is used" \
	")\",\"smi_event\":\"event set k8 has no `smi` event\",\"frequency\":\"CPUID.06H:ECX[0] clear: no APE" \
	"RF/MPERF\",\"thermal\":\"AMD has no thermal log MSR (HTC status is in PCI/SMN space, not an MSR)\",\"" \
	"package_thermal\":\"AMD has no thermal log MSR (HTC status is in PCI/SMN space, not an MSR)\"},\"smi" \
	"_event\":null,\"frequency_reference\":null,\"nmi_counts\":\"unclaimed NMIs\",\"thermal_blind\":[],\"" \
	"package_thermal_blind\":[],\"freeze_while_smm\":{\"supported\":false,\"reason\":\"no freeze-in-SMM c" \
	"ontrol is documented for this vendor\",\"in_force\":null}},\"smi_event\":null,\"method\":\"different" \
	"ial_n_2n\",\"chain_min\":null,\"chain_slack\":null,\"cycles\":{\"min\":4.949,\"median\":5.083,\"max\"" \
	":5.144,\"n\":11,\"q1\":5.051,\"q3\":5.103,\"mad\":0.038,\"outliers\":0,\"outlier_min\":null,\"outlie" \
	"r_max\":null,\"rejected\":0,\"unstable\":null},\"cycles_invalid\":null,\"cycles_source\":\"tsc_calib" \
	"rated\",\"unstable\":null,\"calibration\":{\"source\":\"harness_add_chain\",\"core_per_tsc\":1.602,\"" \
	"remeasured\":0,\"spread\":0.003,\"per_sample\":false,\"samples\":null},\"tsc\":{\"min\":3.088,\"medi" \
	"an\":3.172,\"max\":3.210,\"n\":11,\"q1\":3.152,\"q3\":3.184,\"mad\":0.024,\"outliers\":0,\"outlier_m" \
	"in\":null,\"outlier_max\":null,\"rejected\":0,\"unstable\":null},\"instructions\":null,\"events\":{}" \
	",\"invalid\":{},\"passes\":1,\"penalty\":null,\"penalty_why\":\"no control\",\"expect\":\"control\"," \
	"\"emulated\":true,\"body\":\"mov [rsi], rax / mov rax, [rsi]\",\"problem\":null}"

#define QEMU_BENCH_SIZE_MISMATCH \
	"@pmuboot {\"type\":\"bench\",\"cpu\":{\"n\":0,\"apic_id\":0},\"kernel\":\"store_forward\",\"variant\"" \
	":\"size_mismatch\",\"control\":\"forward\",\"arena\":null,\"arena_page\":null,\"page_crossed\":null," \
	"\"page_offset\":\"0x200\",\"iterations\":1000,\"iterations_min\":1000,\"iterations_capped\":false,\"" \
	"sample_ticks\":9792,\"pilot_ticks\":null,\"reps\":11,\"dropped\":0,\"disturbed\":{\"smi_count\":0,\"" \
	"smi_event\":0,\"frequency\":0,\"thermal\":0,\"package_thermal\":0,\"nmi\":0},\"retaken\":0,\"rejecte" \
	"d\":{\"negative\":0,\"n_2n\":0,\"below_chain\":0,\"clock\":0},\"exhausted\":false,\"interrupts_off\"" \
	":true,\"ledger\":{\"sources\":[\"nmi\"],\"absent\":{\"smi_count\":\"no SMI count MSR on AMD (the SMI" \
	" event is used)\",\"smi_event\":\"event set k8 has no `smi` event\",\"frequency\":\"CPUID.06H:ECX[0]" \
	" clear: no APERF/MPERF\",\"thermal\":\"AMD has no thermal log MSR (HTC status is in PCI/SMN space, n" \
	"ot an MSR)\",\"package_thermal\":\"AMD has no thermal log MSR (HTC status is in PCI/SMN space, not a" \
	"n MSR)\"},\"smi_event\":null,\"frequency_reference\":null,\"nmi_counts\":\"unclaimed NMIs\",\"therma" \
	"l_blind\":[],\"package_thermal_blind\":[],\"freeze_while_smm\":{\"supported\":false,\"reason\":\"no " \
	"freeze-in-SMM control is documented for this vendor\",\"in_force\":null}},\"smi_event\":null,\"metho" \
	"d\":\"differential_n_2n\",\"chain_min\":null,\"chain_slack\":null,\"cycles\":{\"min\":15.513,\"media" \
	"n\":15.692,\"max\":15.728,\"n\":11,\"q1\":15.631,\"q3\":15.710,\"mad\":0.019,\"outliers\":0,\"outlie" \
	"r_min\":null,\"outlier_max\":null,\"rejected\":0,\"unstable\":null},\"cycles_invalid\":null,\"cycles" \
	"_source\":\"tsc_calibrated\",\"unstable\":null,\"calibration\":{\"source\":\"harness_add_chain\",\"c" \
	"ore_per_tsc\":1.602,\"remeasured\":0,\"spread\":0.003,\"per_sample\":false,\"samples\":null},\"tsc\"" \
	":{\"min\":9.680,\"median\":9.792,\"max\":9.814,\"n\":11,\"q1\":9.754,\"q3\":9.803,\"mad\":0.012,\"ou" \
	"tliers\":0,\"outlier_min\":null,\"outlier_max\":null,\"rejected\":0,\"unstable\":null},\"instruction" \
	"s\":null,\"events\":{},\"invalid\":{},\"passes\":1,\"penalty\":{\"median\":10.609,\"low\":10.369,\"h" \
	"igh\":10.779},\"penalty_why\":null,\"expect\":\"slower\",\"emulated\":true,\"body\":\"mov [rsi], eax" \
	" / mov rax, [rsi]\",\"problem\":null}"

#define QEMU_CHECK_SIZE_MISMATCH \
	"@pmuboot {\"type\":\"check\",\"cpu\":{\"n\":0,\"apic_id\":0},\"kernel\":\"store_forward\",\"variant\"" \
	":\"size_mismatch\",\"control\":\"forward\",\"arena\":null,\"what\":\"timing\",\"value\":15.692,\"con" \
	"trol_value\":5.083,\"penalty\":10.609,\"expected\":\"penalty > 0\",\"reason\":\"timing under an emul" \
	"ator is meaningless\",\"status\":\"skip\"}"

#define QEMU_END \
	"@pmuboot {\"type\":\"end\",\"status\":\"ok\",\"errors\":0,\"records\":44,\"crc32\":\"ba3aeebc\"}"

#define HOST_PMU_SKX \
	"@pmuboot {\"type\":\"pmu\",\"kind\":\"intel_arch\",\"present\":true,\"absent_reason\":null,\"note\":" \
	"null,\"version\":4,\"gp\":{\"count\":8,\"width\":48},\"fixed\":{\"count\":3,\"width\":48,\"mask\":\"" \
	"0x7\",\"bitmap\":\"0x0\",\"assumed\":false,\"note\":null},\"arch_events\":{\"length\":7,\"ebx\":\"0x" \
	"0\",\"available\":[\"core_cycles\",\"instructions_retired\",\"reference_cycles\",\"llc_references\"," \
	"\"llc_misses\",\"branch_instructions_retired\",\"branch_misses_retired\"],\"unavailable\":[\"topdown" \
	"_slots\",\"topdown_backend_bound\",\"topdown_bad_speculation\",\"topdown_frontend_bound\",\"topdown_" \
	"retiring\",\"lbr_inserts\"]},\"any_thread_deprecated\":false,\"arch_ext\":null,\"pdcm\":true,\"perf_" \
	"capabilities\":null,\"perf_capabilities_reason\":\"no MSR access here (e.g. pmuboot-host without /de" \
	"v/cpu/N/msr, or a CPUID dump)\",\"smi_count\":false,\"smi_count_reason\":\"no MSR access here (e.g. " \
	"pmuboot-host without /dev/cpu/N/msr, or a CPUID dump)\",\"aperf_mperf\":true,\"probed\":false,\"amd\"" \
	":{\"core_ext\":false,\"nb_ext\":false,\"llc_ext\":false,\"perfmon_v2\":false,\"counters\":0,\"nb_cou" \
	"nters\":0,\"umc_counters\":0,\"lbr_v2\":false,\"lbr_depth\":0},\"ibs\":{\"present\":false,\"flags_va" \
	"lid\":false,\"flags\":null,\"features\":[],\"note\":null,\"absent_reason\":\"IBS is an AMD feature\"" \
	"},\"count_backend\":\"perf\",\"counting\":false,\"counting_reason\":\"the CPU identified (signature " \
	"0x50654) is not the one this program runs on (a CPUID dump?): nothing to count here\",\"perf_event_p" \
	"aranoid\":2}"

#define HOST_AUDIT_FAIL \
	"@pmuboot {\"type\":\"audit\",\"cpu\":{\"n\":0,\"apic_id\":0},\"check\":\"instructions\",\"status\":\"" \
	"fail\",\"counter\":\"pmc1\",\"expected\":40000,\"got\":0,\"why\":\"pmc1 counted 0 instructions_retir" \
	"ed (expected 40000)\",\"measured\":null,\"runner\":\"model\",\"disturbed\":0,\"retaken\":0,\"disturb" \
	"ance\":null}"

#define HOST_AUDIT_PASS \
	"@pmuboot {\"type\":\"audit\",\"cpu\":{\"n\":0,\"apic_id\":0},\"check\":\"fixed\",\"status\":\"pass\"" \
	",\"counter\":\"fixed0-2\",\"expected\":null,\"got\":null,\"why\":null,\"measured\":\"fixed0=exactly " \
	"40000, fixed1=within 0.1% 20000, fixed2=within 0.1% 20000\",\"runner\":\"model\",\"disturbed\":0,\"r" \
	"etaken\":0,\"disturbance\":null}"

#define HOST_AUDIT_FAIL2 \
	"@pmuboot {\"type\":\"audit\",\"cpu\":{\"n\":0,\"apic_id\":0},\"check\":\"full-width\",\"status\":\"f" \
	"ail\",\"counter\":\"pmc1\",\"expected\":2147483392,\"got\":2147483392,\"why\":\"pmc1: from 0x7fffff0" \
	"0 it counted 0, not across bit 31\",\"measured\":null,\"runner\":\"model\",\"disturbed\":0,\"retaken" \
	"\":0,\"disturbance\":null}"

#define HOST_AUDIT_ABSENT \
	"@pmuboot {\"type\":\"audit\",\"cpu\":{\"n\":0,\"apic_id\":0},\"check\":\"topdown\",\"status\":\"abse" \
	"nt\",\"counter\":null,\"expected\":null,\"got\":null,\"why\":\"IA32_PERF_CAPABILITIES is not known h" \
	"ere (no MSR access here (e.g. pmuboot-host without /dev/cpu/N/msr, or a CPUID dump))\",\"measured\":" \
	"null,\"runner\":\"model\",\"disturbed\":0,\"retaken\":0,\"disturbance\":null}"

#define HOST_ERROR_OPTION \
	"@pmuboot {\"type\":\"error\",\"source\":\"argument 1\",\"what\":\"bogus\",\"message\":\"unknown opti" \
	"on 'bogus' (see docs/options.md)\"}"

#define HOST_ERROR_BENCH \
	"@pmuboot {\"type\":\"error\",\"source\":\"argument 2\",\"what\":\"bench\",\"message\":\"unknown benc" \
	"hmark 'nothing_such' (a kernel, kernel.variant, all, none or list)\"}"

#define HOST_END_ERROR \
	"@pmuboot {\"type\":\"end\",\"status\":\"error\",\"errors\":5,\"records\":12,\"crc32\":\"c5e9d63b\"}"

#define HOST_USER_FAULT \
	"@pmuboot {\"type\":\"fault\",\"cpu\":{\"n\":0,\"apic_id\":0},\"kernel\":\"user.bad\",\"source\":\"ke" \
	"rnel.bad\",\"vector\":6,\"name\":\"#UD\",\"signal\":\"SIGILL\",\"error_code\":\"0x0\",\"addr\":\"0x0" \
	"\",\"code_offset\":\"0x40\",\"in\":\"body\",\"copy\":0,\"body_offset\":\"0x0\",\"body_hex\":\"0f0b\"" \
	",\"outcome\":\"kernel not measured; the window was restored and the run goes on\"}"

#define HOST2_TOPOLOGY \
	"@pmuboot {\"type\":\"topology\",\"source\":\"linux\",\"count\":2,\"listed\":2,\"summary\":\"1 packag" \
	"e x 2 cores x 1 thread\",\"cpus\":[{\"n\":0,\"apic_id\":0,\"bsp\":true,\"enabled\":true,\"healthy\":" \
	"true,\"package\":0,\"die\":0,\"core\":0,\"thread\":0,\"probed\":true,\"core_type\":null,\"uarch_key\"" \
	":\"rocketlake\"},{\"n\":1,\"apic_id\":1,\"bsp\":false,\"enabled\":true,\"healthy\":true,\"package\":" \
	"0,\"die\":0,\"core\":1,\"thread\":0,\"probed\":true,\"core_type\":null,\"uarch_key\":\"rocketlake\"}" \
	"],\"core_types\":[{\"core_type\":null,\"hybrid\":false,\"uarch\":\"Cypress Cove (Rocket Lake)\",\"ua" \
	"rch_key\":\"rocketlake\",\"event_set\":\"rocketlake\",\"fallback\":false,\"count\":2,\"first\":0,\"p" \
	"mu_version\":0,\"ibs\":false}],\"cpus_option\":\"all\",\"neighbours\":\"running whatever Linux sched" \
	"ules on them (not parked)\",\"chosen_count\":2,\"chosen\":[{\"n\":0,\"apic_id\":0},{\"n\":1,\"apic_i" \
	"d\":1}]}"

#define HOST2_BENCH0_ADD \
	"@pmuboot {\"type\":\"bench\",\"cpu\":{\"n\":0,\"apic_id\":0},\"kernel\":\"ref\",\"variant\":\"add_ch" \
	"ain\",\"control\":null,\"arena\":null,\"arena_page\":null,\"page_crossed\":null,\"page_offset\":\"0x" \
	"0\",\"iterations\":36408,\"iterations_min\":1000,\"iterations_capped\":false,\"sample_ticks\":23192," \
	"\"pilot_ticks\":23048,\"reps\":11,\"dropped\":0,\"disturbed\":{\"smi_count\":0,\"smi_event\":0,\"fre" \
	"quency\":0,\"thermal\":0,\"package_thermal\":0,\"nmi\":0},\"retaken\":0,\"rejected\":{\"negative\":0" \
	",\"n_2n\":0,\"below_chain\":0,\"clock\":0},\"exhausted\":false,\"interrupts_off\":true,\"ledger\":{\"" \
	"sources\":[\"nmi\"],\"absent\":{\"smi_count\":\"MSR 34H not readable: no MSR access from here\",\"sm" \
	"i_event\":\"event set rocketlake has no `smi` event\",\"frequency\":\"CPUID.06H:ECX[0] clear: no APE" \
	"RF/MPERF\",\"thermal\":\"CPUID.01H:EDX[22] (ACPI thermal monitor) clear\",\"package_thermal\":\"CPUI" \
	"D.06H:EAX[6] (package thermal management) clear\"},\"smi_event\":null,\"frequency_reference\":null,\"" \
	"nmi_counts\":\"context switches and interrupts\",\"thermal_blind\":[],\"package_thermal_blind\":[],\"" \
	"freeze_while_smm\":{\"supported\":false,\"reason\":\"CPUID.01H:ECX[15] (PDCM) clear: no IA32_PERF_CA" \
	"PABILITIES\",\"in_force\":null}},\"smi_event\":null,\"method\":\"differential_n_2n\",\"chain_min\":1" \
	".000,\"chain_slack\":0.006,\"cycles\":{\"min\":0.998,\"median\":1.002,\"max\":1.004,\"n\":11,\"q1\":" \
	"1.001,\"q3\":1.002,\"mad\":0.000,\"outliers\":0,\"outlier_min\":null,\"outlier_max\":null,\"rejected" \
	"\":0,\"unstable\":null},\"cycles_invalid\":null,\"cycles_source\":\"tsc_calibrated\",\"unstable\":nu" \
	"ll,\"calibration\":{\"source\":\"harness_add_chain\",\"core_per_tsc\":1.572,\"before\":1.572,\"after" \
	"\":1.574,\"remeasured\":0,\"spread\":0.003,\"per_sample\":true,\"samples\":{\"min\":1.568,\"median\"" \
	":1.573,\"max\":1.574,\"median_ppm\":1573342}},\"tsc\":{\"min\":0.635,\"median\":0.637,\"max\":0.638," \
	"\"n\":11,\"q1\":0.636,\"q3\":0.637,\"mad\":0.000,\"outliers\":0,\"outlier_min\":null,\"outlier_max\"" \
	":null,\"rejected\":0,\"unstable\":null},\"instructions\":null,\"events\":{},\"invalid\":{},\"passes\"" \
	":1,\"penalty\":null,\"penalty_why\":\"no control\",\"expect\":\"reference\",\"emulated\":false,\"bod" \
	"y\":\"add rax, rcx\",\"problem\":null}"

#define HOST2_CHECK0_ADD \
	"@pmuboot {\"type\":\"check\",\"cpu\":{\"n\":0,\"apic_id\":0},\"kernel\":\"ref\",\"variant\":\"add_ch" \
	"ain\",\"control\":null,\"arena\":null,\"what\":\"reference\",\"value\":1.002,\"expected_min\":0.950," \
	"\"expected_max\":1.050,\"reason\":\"cycles were calibrated on an add chain: this checks their stabil" \
	"ity only\",\"status\":\"pass\"}"

#define HOST2_PASS0 \
	"@pmuboot {\"type\":\"pass\",\"cpu\":{\"n\":0,\"apic_id\":0},\"outcome\":\"measured\",\"why\":null,\"" \
	"expected_because\":null,\"boot_processor\":true,\"neighbours\":\"others: running whatever Linux sche" \
	"dules on them (not parked)\"}"

#define HOST2_BENCH1_LOAD \
	"@pmuboot {\"type\":\"bench\",\"cpu\":{\"n\":1,\"apic_id\":1},\"kernel\":\"ref\",\"variant\":\"load_c" \
	"hain\",\"control\":null,\"arena\":null,\"arena_page\":null,\"page_crossed\":null,\"page_offset\":\"0" \
	"x0\",\"iterations\":11616,\"iterations_min\":1000,\"iterations_capped\":false,\"sample_ticks\":39843" \
	",\"pilot_ticks\":36918,\"reps\":11,\"dropped\":1,\"disturbed\":{\"smi_count\":0,\"smi_event\":0,\"fr" \
	"equency\":0,\"thermal\":0,\"package_thermal\":0,\"nmi\":1},\"retaken\":1,\"rejected\":{\"negative\":" \
	"0,\"n_2n\":0,\"below_chain\":0,\"clock\":21},\"exhausted\":true,\"interrupts_off\":true,\"ledger\":{" \
	"\"sources\":[\"nmi\"],\"absent\":{\"smi_count\":\"MSR 34H not readable: no MSR access from here\",\"" \
	"smi_event\":\"event set rocketlake has no `smi` event\",\"frequency\":\"CPUID.06H:ECX[0] clear: no A" \
	"PERF/MPERF\",\"thermal\":\"CPUID.01H:EDX[22] (ACPI thermal monitor) clear\",\"package_thermal\":\"CP" \
	"UID.06H:EAX[6] (package thermal management) clear\"},\"smi_event\":null,\"frequency_reference\":null" \
	",\"nmi_counts\":\"context switches and interrupts\",\"thermal_blind\":[],\"package_thermal_blind\":[" \
	"],\"freeze_while_smm\":{\"supported\":false,\"reason\":\"CPUID.01H:ECX[15] (PDCM) clear: no IA32_PER" \
	"F_CAPABILITIES\",\"in_force\":null}},\"smi_event\":null,\"method\":\"differential_n_2n\",\"chain_min" \
	"\":1.000,\"chain_slack\":0.014,\"cycles\":{\"min\":4.995,\"median\":5.004,\"max\":5.013,\"n\":2,\"q1" \
	"\":4.999,\"q3\":5.008,\"mad\":0.009,\"outliers\":0,\"outlier_min\":null,\"outlier_max\":null,\"rejec" \
	"ted\":21,\"unstable\":\"budget\"},\"cycles_invalid\":null,\"cycles_source\":\"tsc_calibrated\",\"uns" \
	"table\":\"budget\",\"calibration\":{\"source\":\"harness_add_chain\",\"core_per_tsc\":1.459,\"before" \
	"\":1.459,\"after\":1.572,\"remeasured\":2,\"spread\":0.007,\"per_sample\":true,\"samples\":{\"min\":" \
	"1.457,\"median\":1.458,\"max\":1.460,\"median_ppm\":1458983}},\"tsc\":{\"min\":3.427,\"median\":3.43" \
	"0,\"max\":3.433,\"n\":2,\"q1\":3.428,\"q3\":3.431,\"mad\":0.003,\"outliers\":0,\"outlier_min\":null," \
	"\"outlier_max\":null,\"rejected\":21,\"unstable\":\"budget\"},\"instructions\":null,\"events\":{},\"" \
	"invalid\":{},\"passes\":1,\"penalty\":null,\"penalty_why\":\"no control\",\"expect\":\"reference\",\"" \
	"emulated\":false,\"body\":\"mov rax, [rax]\",\"problem\":null}"

#define HOST2_CHECK1_LOAD \
	"@pmuboot {\"type\":\"check\",\"cpu\":{\"n\":1,\"apic_id\":1},\"kernel\":\"ref\",\"variant\":\"load_c" \
	"hain\",\"control\":null,\"arena\":null,\"what\":\"reference\",\"value\":5.004,\"expected_min\":2.000" \
	",\"expected_max\":8.000,\"reason\":\"variant cycles unstable (budget)\",\"status\":\"unstable\"}"

#define HOST2_PASS1 \
	"@pmuboot {\"type\":\"pass\",\"cpu\":{\"n\":1,\"apic_id\":1},\"outcome\":\"measured\",\"why\":null,\"" \
	"expected_because\":null,\"boot_processor\":false,\"neighbours\":\"others: running whatever Linux sch" \
	"edules on them (not parked)\"}"

/*
 * instr records (issue 31): QEMU_INSTR_ADD from the image under QEMU with instr="^ADD r64" and a kernel
 * pack of those forms; INSTR_* from `pmuboot-host instr --cpu 1` on 2026-11-30's KVM Xeon (no counters):
 * a write-only destination (POPCNT: no op1 -> op1 chain), a form with only an upper bound (BT: flags), a
 * form that faulted (RDPMC, #GP in that VM).
 */
#define QEMU_INSTR_ADD \
	"@pmuboot {\"type\":\"instr\",\"cpu\":{\"n\":0,\"apic_id\":0},\"asm\":\"ADD r64, r64\",\"iform\":\"AD" \
	"D_GPRv_GPRv_01\",\"extension\":\"BASE\",\"isa_set\":\"I86\",\"latency\":[{\"from\":\"op1\",\"to\":\"" \
	"op1\",\"cycles\":1.035,\"spread\":{\"min\":0.272,\"max\":1.688},\"unstable\":\"spread\",\"bound\":\"" \
	"exact\",\"via\":null,\"note\":null},{\"from\":\"op1\",\"to\":\"flags\",\"cycles\":4.901,\"spread\":{" \
	"\"min\":3.974,\"max\":8.493},\"unstable\":\"spread\",\"bound\":\"upper\",\"via\":\"sbb r, r (flags -" \
	"> register, not measurable alone: included)\",\"note\":null},{\"from\":\"op2\",\"to\":\"op1\",\"cycl" \
	"es\":1.035,\"spread\":{\"min\":0.218,\"max\":2.395},\"unstable\":\"spread\",\"bound\":\"exact\",\"vi" \
	"a\":null,\"note\":null},{\"from\":\"op2\",\"to\":\"flags\",\"cycles\":4.138,\"spread\":{\"min\":2.34" \
	"1,\"max\":7.894},\"unstable\":\"spread\",\"bound\":\"upper\",\"via\":\"sbb r, r (flags -> register, " \
	"not measurable alone: included)\",\"note\":null}],\"latency_skipped\":null,\"connectors\":[],\"throu" \
	"ghput\":{\"cycles\":0.137,\"spread\":{\"min\":0.040,\"max\":0.505},\"unstable\":\"spread\",\"how\":" \
	"\"unrolled\",\"unrolled\":0.137,\"loop\":1.034,\"broken\":null,\"chain\":null},\"throughput_why\":nul" \
	"l,\"idiom\":null,\"values\":\"general registers 1, cl 1, imm8 3, imm16 0x123, imm32 0x12345, vector " \
	"lanes 0x3f800000 (1.0f), memory 0\",\"uops\":null,\"ports\":null,\"uops_why\":\"no counters: no work" \
	"ing PMU: the counters CPUID implies do not keep a value written to them; QEMU TCG emulates none\",\"" \
	"ports_why\":\"no counters: no working PMU: the counters CPUID implies do not keep a value written to" \
	" them; QEMU TCG emulates none\",\"cycles_source\":\"tsc\",\"core_per_tsc\":1.742,\"fault\":null,\"wh" \
	"y\":null,\"unstable\":\"spread\",\"emulated\":true,\"seconds\":0.002}"
#define INSTR_POPCNT \
	"@pmuboot {\"type\":\"instr\",\"cpu\":{\"n\":1,\"apic_id\":1},\"asm\":\"POPCNT r64, r64\",\"iform\":" \
	"\"POPCNT_GPRv_GPRv\",\"extension\":\"SSE4\",\"isa_set\":\"POPCNT\",\"latency\":[{\"from\":\"op2\",\"t" \
	"o\":\"op1\",\"cycles\":2.981,\"spread\":{\"min\":2.974,\"max\":3.008},\"unstable\":null,\"bound\":\"" \
	"exact\",\"via\":null,\"note\":null},{\"from\":\"op2\",\"to\":\"flags\",\"cycles\":3.977,\"spread\":{" \
	"\"min\":3.967,\"max\":3.995},\"unstable\":null,\"bound\":\"upper\",\"via\":\"sbb r, r (flags -> regi" \
	"ster, not measurable alone: included)\",\"note\":null}],\"latency_skipped\":null,\"connectors\":[]," \
	"\"throughput\":{\"cycles\":0.998,\"spread\":{\"min\":0.993,\"max\":1.003},\"unstable\":null,\"how\":" \
	"\"unrolled\",\"unrolled\":0.998,\"loop\":1.002,\"broken\":null,\"chain\":null},\"throughput_why\":nul" \
	"l,\"idiom\":null,\"values\":\"general registers 1, cl 1, imm8 3, imm16 0x123, imm32 0x12345, vector " \
	"lanes 0x3f800000 (1.0f), memory 0\",\"uops\":null,\"ports\":null,\"uops_why\":\"no counters: perf_ev" \
	"ent_open: No such file or directory (no PMU exposed to this VM)\",\"ports_why\":\"no counters: perf_" \
	"event_open: No such file or directory (no PMU exposed to this VM)\",\"cycles_source\":\"tsc_calibrat" \
	"ed\",\"core_per_tsc\":1.536,\"fault\":null,\"why\":null,\"unstable\":null,\"emulated\":false,\"secon" \
	"ds\":0.009}"
#define INSTR_BT_IMM8 \
	"@pmuboot {\"type\":\"instr\",\"cpu\":{\"n\":1,\"apic_id\":1},\"asm\":\"BT r64, imm8\",\"iform\":\"BT" \
	"_GPRv_IMMb\",\"extension\":\"BASE\",\"isa_set\":\"I386\",\"latency\":[{\"from\":\"op1\",\"to\":\"fla" \
	"gs\",\"cycles\":1.987,\"spread\":{\"min\":1.985,\"max\":2.001},\"unstable\":null,\"bound\":\"upper\"" \
	",\"via\":\"sbb r, r (flags -> register, not measurable alone: included)\",\"note\":null}],\"latency_" \
	"skipped\":null,\"connectors\":[],\"throughput\":{\"cycles\":0.993,\"spread\":{\"min\":0.991,\"max\":" \
	"0.999},\"unstable\":null,\"how\":\"unrolled\",\"unrolled\":0.993,\"loop\":1.000,\"broken\":null,\"ch" \
	"ain\":null},\"throughput_why\":null,\"idiom\":null,\"values\":\"general registers 1, cl 1, imm8 3, i" \
	"mm16 0x123, imm32 0x12345, vector lanes 0x3f800000 (1.0f), memory 0\",\"uops\":null,\"ports\":null," \
	"\"uops_why\":\"no counters: perf_event_open: No such file or directory (no PMU exposed to this VM)\"," \
	"\"ports_why\":\"no counters: perf_event_open: No such file or directory (no PMU exposed to this VM)" \
	"\",\"cycles_source\":\"tsc_calibrated\",\"core_per_tsc\":1.533,\"fault\":null,\"why\":null,\"unstable" \
	"\":null,\"emulated\":false,\"seconds\":0.009}"
#define INSTR_RDPMC \
	"@pmuboot {\"type\":\"instr\",\"cpu\":{\"n\":1,\"apic_id\":1},\"asm\":\"RDPMC\",\"iform\":\"RDPMC\"," \
	"\"extension\":\"BASE\",\"isa_set\":\"RDPMC\",\"latency\":[],\"latency_skipped\":\"implicit msrs: not " \
	"chained; ecx->eax: ecx selects what is read: a chain would change it (#GP); ecx->edx: ecx selects wh" \
	"at is read: a chain would change it (#GP)\",\"connectors\":[],\"throughput\":null,\"throughput_why\"" \
	":\"not measured\",\"idiom\":null,\"values\":\"general registers 1, cl 1, imm8 3, imm16 0x123, imm32 " \
	"0x12345, vector lanes 0x3f800000 (1.0f), memory 0; ecx 0 (it selects what is read: XCR0, counter 0, " \
	"PKRU)\",\"uops\":null,\"ports\":null,\"uops_why\":\"no counters: perf_event_open: No such file or di" \
	"rectory (no PMU exposed to this VM)\",\"ports_why\":\"no counters: perf_event_open: No such file or " \
	"directory (no PMU exposed to this VM)\",\"cycles_source\":\"tsc_calibrated\",\"core_per_tsc\":1.536," \
	"\"fault\":{\"vector\":13,\"name\":\"#GP\",\"signal\":\"SIGSEGV\",\"rip\":\"0x7ff2408b90c0\"},\"why\"" \
	":\"faulted: #GP (SIGSEGV): not measured\",\"unstable\":null,\"emulated\":false,\"seconds\":0.000}"

#endif
