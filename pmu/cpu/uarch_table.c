/*
 * pmu/cpu/uarch_table.c - the microarchitecture table (see uarch.h) and its lookup.
 *
 * Sources of the signatures: Intel SDM Vol. 4, Table 2-1 (CPUID signature
 * values of DisplayFamily_DisplayModel) and the Intel Architecture
 * Instruction Set Extensions reference for parts newer than Vol. 4, with
 * Linux's arch/x86/include/asm/intel-family.h for the models and cores those
 * leave out; Intel AP-485 (Processor Identification) for family 5; AMD's
 * BKDGs (Families 0Fh, 10h, 12h, 14h, 15h models 00h-7Fh, 16h) and PPRs
 * (Families 17h, 19h, 1Ah), whose model ranges group each family's cores;
 * Hygon Family 18h is AMD Family 17h (Zen) under licence.  The Skylake
 * server stepping split (Skylake-SP 0-4, Cascade Lake 5-7, Cooper Lake
 * 10-11) is Intel's numbering for model 55h; Kaby Lake (stepping 9) and
 * Coffee Lake (10-13) share model 9Eh the same way.
 *
 * Which event set: where the vendor data says, its own mapping (BASIS_VENDOR).
 * Intel: perfmon's mapfile.csv, row by row - (family, model[, stepping],
 * core type, native model ID) -> core file; a hybrid model lists one file per
 * (core type, native model ID), so those rows carry the native model ID
 * (CPUID.1AH:EAX[23:0]): Arrow Lake-H (C5H) has Skymont E-cores (Atom, 3),
 * Crestmont low-power E-cores (Atom, 2) and Lion Cove P-cores (Core, 3).
 * AMD: libpfm4's family/model rule (pfmlib_amd64.c), which takes a family
 * whole where it holds one core generation (0Fh-16h); in Families 17h, 19h
 * and 1Ah, which hold two, only the model ranges Linux's
 * arch/x86/kernel/cpu/amd.c also places are rows, and where the two
 * disagree (17h models 50h-5Fh: libpfm4 Zen 2, Linux Zen 1) the row says so.
 * Where the vendor data has no entry for a model, a row gives the set of the
 * core it is built on and a note says so (BASIS_RELATED); a core with no
 * counters pmuboot drives has no set and a note saying why (BASIS_NONE).
 */
#include "pmu/cpu/uarch.h"

enum event_set_id {
	ES_P6,
	ES_CORE,
	ES_NEHALEM,
	ES_WESTMERE,
	ES_SANDYBRIDGE,
	ES_IVYBRIDGE,
	ES_HASWELL,
	ES_BROADWELL,
	ES_SKYLAKE,
	ES_SKYLAKE_SERVER,
	ES_ICELAKE,
	ES_ICELAKE_SERVER,
	ES_TIGERLAKE,
	ES_GOLDENCOVE,
	ES_REDWOODCOVE,
	ES_LIONCOVE,
	ES_BONNELL,
	ES_SILVERMONT,
	ES_GOLDMONT,
	ES_GOLDMONT_PLUS,
	ES_TREMONT,
	ES_GRACEMONT,
	ES_CRESTMONT,
	ES_SKYMONT,
	ES_INTEL_ARCH,
	ES_K8,
	ES_FAM10H,
	ES_FAM14H,
	ES_FAM15H,
	ES_FAM16H,
	ES_ZEN1,
	ES_ZEN2,
	ES_ZEN3,
	ES_ZEN4,
	ES_ZEN5,
	ES_AMD_LEGACY,
	/* One set per vendor event file (events/sets.csv), added with the imported tables. */
	ES_PENTIUM_PRO,
	ES_PENTIUM2,
	ES_PENTIUM_M,
	ES_COREDUO,
	ES_NEHALEM_EX,
	ES_WESTMERE_DP,
	ES_WESTMERE_EX,
	ES_JAKETOWN,
	ES_IVYTOWN,
	ES_HASWELLX,
	ES_BROADWELLX,
	ES_BROADWELLDE,
	ES_CASCADELAKEX,
	ES_ROCKETLAKE,
	ES_SAPPHIRERAPIDS,
	ES_EMERALDRAPIDS,
	ES_GRANITERAPIDS,
	ES_LIONCOVE_LNL,
	ES_SKYMONT_LNL,
	ES_COUGARCOVE,
	ES_DARKMONT,
	ES_ELKHARTLAKE,
	ES_SIERRAFOREST,
	ES_GRANDRIDGE,
	ES_CLEARWATER,
	ES_K7,
	ES_FAM11H,
	ES_FAM12H,
	ES_CRESTMONT_ARL,
	ES_KNL,
	ES_COYOTECOVE,
	ES_ARCTICWOLF,
};

const char uarch_event_sets[][UARCH_EVENT_SET_MAX] = {
	[ES_P6] = "p6",
	[ES_CORE] = "core",
	[ES_NEHALEM] = "nehalem",
	[ES_WESTMERE] = "westmere",
	[ES_SANDYBRIDGE] = "sandybridge",
	[ES_IVYBRIDGE] = "ivybridge",
	[ES_HASWELL] = "haswell",
	[ES_BROADWELL] = "broadwell",
	[ES_SKYLAKE] = "skylake",
	[ES_SKYLAKE_SERVER] = "skylake_server",
	[ES_ICELAKE] = "icelake",
	[ES_ICELAKE_SERVER] = "icelake_server",
	[ES_TIGERLAKE] = "tigerlake",
	[ES_GOLDENCOVE] = "goldencove",
	[ES_REDWOODCOVE] = "redwoodcove",
	[ES_LIONCOVE] = "lioncove",
	[ES_BONNELL] = "bonnell",
	[ES_SILVERMONT] = "silvermont",
	[ES_GOLDMONT] = "goldmont",
	[ES_GOLDMONT_PLUS] = "goldmont_plus",
	[ES_TREMONT] = "tremont",
	[ES_GRACEMONT] = "gracemont",
	[ES_CRESTMONT] = "crestmont",
	[ES_SKYMONT] = "skymont",
	[ES_INTEL_ARCH] = "intel_arch",
	[ES_K8] = "k8",
	[ES_FAM10H] = "fam10h",
	[ES_FAM14H] = "fam14h",
	[ES_FAM15H] = "fam15h",
	[ES_FAM16H] = "fam16h",
	[ES_ZEN1] = "zen1",
	[ES_ZEN2] = "zen2",
	[ES_ZEN3] = "zen3",
	[ES_ZEN4] = "zen4",
	[ES_ZEN5] = "zen5",
	[ES_AMD_LEGACY] = "amd_legacy",
	[ES_PENTIUM_PRO] = "pentium_pro",
	[ES_PENTIUM2] = "pentium2",
	[ES_PENTIUM_M] = "pentium_m",
	[ES_COREDUO] = "coreduo",
	[ES_NEHALEM_EX] = "nehalem_ex",
	[ES_WESTMERE_DP] = "westmere_dp",
	[ES_WESTMERE_EX] = "westmere_ex",
	[ES_JAKETOWN] = "jaketown",
	[ES_IVYTOWN] = "ivytown",
	[ES_HASWELLX] = "haswellx",
	[ES_BROADWELLX] = "broadwellx",
	[ES_BROADWELLDE] = "broadwellde",
	[ES_CASCADELAKEX] = "cascadelakex",
	[ES_ROCKETLAKE] = "rocketlake",
	[ES_SAPPHIRERAPIDS] = "sapphirerapids",
	[ES_EMERALDRAPIDS] = "emeraldrapids",
	[ES_GRANITERAPIDS] = "graniterapids",
	[ES_LIONCOVE_LNL] = "lioncove_lnl",
	[ES_SKYMONT_LNL] = "skymont_lnl",
	[ES_COUGARCOVE] = "cougarcove",
	[ES_DARKMONT] = "darkmont",
	[ES_ELKHARTLAKE] = "elkhartlake",
	[ES_SIERRAFOREST] = "sierraforest",
	[ES_GRANDRIDGE] = "grandridge",
	[ES_CLEARWATER] = "clearwater",
	[ES_K7] = "k7",
	[ES_FAM11H] = "fam11h",
	[ES_FAM12H] = "fam12h",
	[ES_CRESTMONT_ARL] = "crestmont_arl",
	[ES_KNL] = "knl",
	[ES_COYOTECOVE] = "coyotecove",
	[ES_ARCTICWOLF] = "arcticwolf",
};
const size_t uarch_event_sets_count = ARRAY_SIZE(uarch_event_sets);

/* Why a row's set applies where the vendor data does not say, or why a core has none. */
enum note_id {
	N_NONE,
	N_NETBURST,
	N_P5,
	N_K6,
	N_TOLAPAI,
	N_CANNONLAKE,
	N_ICELAKE_NNPI,
	N_BARTLETT,
	N_LAKEFIELD,
	N_SILVERMONT,
	N_ZEN1_50H,
	N_HYGON,
};

#define NOTE_MAX 232

static const char notes[][NOTE_MAX] = {
	[N_NONE] = "",
	[N_NETBURST] = "NetBurst performance monitoring (ESCR/CCCR) is not supported by pmuboot: it counts through "
		       "ESCR/CCCR pairs, not PerfEvtSel counters (SDM Vol. 3B, Pentium 4 performance monitoring)",
	[N_P5] = "the P5 has no architectural PMU: it counts two events through its model-specific CESR, CTR0 and "
		 "CTR1 (MSRs 11H-13H; SDM Vol. 3B, Pentium processor performance monitoring), which pmuboot does not drive",
	[N_K6] = "the AMD-K6 family has no performance counters at all: its MSRs are machine-check, test, "
		 "time-stamp, feature and cache/power control registers (AMD-K6 Processor BIOS Design, 21329)",
	[N_TOLAPAI] = "no vendor table lists model 15H; Tolapai (EP80579) is built on the Pentium M core, "
		      "so the Pentium M events (libpfm4 intel_pm_events.h)",
	[N_CANNONLAKE] = "perfmon lists no file for model 66H; its Palm Cove core is the Skylake client core "
			 "on 10 nm (Linux intel-family.h), so Skylake client's events",
	[N_ICELAKE_NNPI] = "perfmon lists Ice Lake client as 7DH and 7EH only; 9DH is the same Sunny Cove core "
			   "(Linux intel-family.h), so Ice Lake client's events",
	[N_BARTLETT] = "perfmon lists no file for model D7H; its cores are Raptor Cove (Linux intel-family.h), which "
		       "perfmon gives Alder Lake's P-core file on Raptor Lake B7H, BAH and BFH",
	[N_LAKEFIELD] = "perfmon lists no Lakefield file; its cores are Sunny Cove and Tremont (Linux "
			"intel-family.h), so Ice Lake client's and Snow Ridge's events",
	[N_SILVERMONT] = "perfmon's Silvermont file lists 37H, 4AH, 4CH, 4DH and 5AH; this model is the same "
			 "Silvermont/Airmont core, so its events",
	[N_ZEN1_50H] = "libpfm4 takes its Zen 2 table for Family 17h models from 30h on, but Linux "
		       "(arch/x86/kernel/cpu/amd.c) counts models 50h-5Fh as Zen 1, as pmuboot's IBS check does: "
		       "Zen's events",
	[N_HYGON] = "libpfm4 knows AuthenticAMD only; Hygon's Family 18h cores are AMD's Zen (Family 17h "
		    "models 00h-0Fh) under licence, so Zen's events",
};

enum uarch_id {
	U_PENTIUM_PRO,
	U_PENTIUM2,
	U_PENTIUM3,
	U_PENTIUM_M,
	U_TOLAPAI,
	U_YONAH,
	U_MEROM,
	U_PENRYN,
	U_NEHALEM,
	U_WESTMERE,
	U_SANDYBRIDGE,
	U_IVYBRIDGE,
	U_HASWELL,
	U_BROADWELL,
	U_SKYLAKE,
	U_KABYLAKE,
	U_KABYLAKE_L,
	U_COFFEELAKE,
	U_COMETLAKE,
	U_CANNONLAKE,
	U_SKYLAKE_SP,
	U_CASCADELAKE,
	U_COOPERLAKE,
	U_SKX_LATE,
	U_ICELAKE,
	U_ICELAKE_NNPI,
	U_ROCKETLAKE,
	U_ICELAKE_SP,
	U_TIGERLAKE,
	U_LAKEFIELD_P,
	U_LAKEFIELD_E,
	U_ADL_P,
	U_ADL_E,
	U_RPL_P,
	U_RPL_E,
	U_BARTLETT,
	U_SPR,
	U_EMR,
	U_MTL_P,
	U_MTL_E,
	U_ARLU_P,
	U_ARLU_E,
	U_GNR,
	U_ARL_P,
	U_ARL_E,
	U_ARLH_LPE,
	U_LNL_P,
	U_LNL_E,
	U_NVL_P,
	U_NVL_E,
	U_KNL,
	U_KNM,
	U_BONNELL,
	U_SALTWELL,
	U_SILVERMONT,
	U_SOFIA,
	U_AIRMONT,
	U_AIRMONT_NP,
	U_GOLDMONT,
	U_GOLDMONT_PLUS,
	U_TREMONT,
	U_ADLN,
	U_SRF,
	U_P5,
	U_P5_MMX,
	U_NETBURST,
	U_K6,
	U_K6_2,
	U_K6_3,
	U_K6_PLUS,
	U_K8,
	U_K10,
	U_LLANO,
	U_BOBCAT,
	U_BULLDOZER,
	U_PILEDRIVER,
	U_STEAMROLLER,
	U_EXCAVATOR,
	U_FAM15H,
	U_JAGUAR,
	U_PUMA,
	U_FAM16H,
	U_ZEN,
	U_ZEN_PLUS,
	U_ZEN_50H,
	U_ZEN2,
	U_ZEN3,
	U_ZEN3_PLUS,
	U_ZEN4,
	U_ZEN5,
	U_DHYANA,
	U_HYGON_1X,
	U_NEHALEM_EX,
	U_WESTMERE_DP,
	U_WESTMERE_EX,
	U_SANDYBRIDGE_EP,
	U_IVYBRIDGE_EP,
	U_HASWELL_EP,
	U_BROADWELL_EP,
	U_BROADWELL_DE,
	U_PTL_P,
	U_PTL_E,
	U_ELKHARTLAKE,
	U_GRR,
	U_CWF,
	U_K7,
	U_GRIFFIN,
};

#define V BASIS_VENDOR
#define REL BASIS_RELATED
#define NONE BASIS_NONE

static const struct uarch_desc descs[] = {
	[U_PENTIUM_PRO] = { "pentium_pro", "P6 (Pentium Pro)", ES_PENTIUM_PRO, V, 0 },
	[U_PENTIUM2] = { "pentium2", "P6 (Pentium II, Celeron)", ES_PENTIUM2, V, 0 },
	[U_PENTIUM3] = { "pentium3", "P6 (Pentium III)", ES_P6, V, 0 },
	[U_PENTIUM_M] = { "pentium_m", "P6 (Pentium M)", ES_PENTIUM_M, V, 0 },
	[U_TOLAPAI] = { "pentium_m", "P6 (Pentium M core, Tolapai EP80579)", ES_PENTIUM_M, REL, N_TOLAPAI },
	[U_YONAH] = { "yonah", "Yonah (Core Solo, Core Duo)", ES_COREDUO, V, 0 },
	[U_MEROM] = { "merom", "Core (Merom/Conroe, 65 nm)", ES_CORE, V, 0 },
	[U_PENRYN] = { "penryn", "Penryn (45 nm Core)", ES_CORE, V, 0 },
	[U_NEHALEM] = { "nehalem", "Nehalem", ES_NEHALEM, V, 0 },
	[U_WESTMERE] = { "westmere", "Westmere", ES_WESTMERE, V, 0 },
	[U_SANDYBRIDGE] = { "sandybridge", "Sandy Bridge", ES_SANDYBRIDGE, V, 0 },
	[U_IVYBRIDGE] = { "ivybridge", "Ivy Bridge", ES_IVYBRIDGE, V, 0 },
	[U_HASWELL] = { "haswell", "Haswell", ES_HASWELL, V, 0 },
	[U_BROADWELL] = { "broadwell", "Broadwell", ES_BROADWELL, V, 0 },
	[U_SKYLAKE] = { "skylake", "Skylake (client)", ES_SKYLAKE, V, 0 },
	[U_KABYLAKE] = { "kabylake", "Skylake core (Kaby Lake)", ES_SKYLAKE, V, 0 },
	[U_KABYLAKE_L] = { "kabylake_l", "Skylake core (Kaby/Whiskey/Comet Lake-U)", ES_SKYLAKE, V, 0 },
	[U_COFFEELAKE] = { "coffeelake", "Skylake core (Coffee Lake)", ES_SKYLAKE, V, 0 },
	[U_COMETLAKE] = { "cometlake", "Skylake core (Comet Lake)", ES_SKYLAKE, V, 0 },
	[U_CANNONLAKE] = { "cannonlake", "Palm Cove (Cannon Lake)", ES_SKYLAKE, REL, N_CANNONLAKE },
	[U_SKYLAKE_SP] = { "skylake_sp", "Skylake server (Skylake-SP)", ES_SKYLAKE_SERVER, V, 0 },
	[U_CASCADELAKE] = { "cascadelake", "Skylake server core (Cascade Lake)", ES_CASCADELAKEX, V, 0 },
	[U_COOPERLAKE] = { "cooperlake", "Skylake server core (Cooper Lake)", ES_CASCADELAKEX, V, 0 },
	[U_SKX_LATE] = { "cascadelake", "Skylake server core (CLX-class stepping)", ES_CASCADELAKEX, V, 0 },
	[U_ICELAKE] = { "icelake", "Sunny Cove (Ice Lake client)", ES_ICELAKE, V, 0 },
	[U_ICELAKE_NNPI] = { "icelake", "Sunny Cove (Ice Lake NNPI)", ES_ICELAKE, REL, N_ICELAKE_NNPI },
	[U_ROCKETLAKE] = { "rocketlake", "Cypress Cove (Rocket Lake)", ES_ROCKETLAKE, V, 0 },
	[U_ICELAKE_SP] = { "icelake_sp", "Sunny Cove (Ice Lake server)", ES_ICELAKE_SERVER, V, 0 },
	[U_TIGERLAKE] = { "tigerlake", "Willow Cove (Tiger Lake)", ES_TIGERLAKE, V, 0 },
	[U_LAKEFIELD_P] = { "lakefield_p", "Sunny Cove (Lakefield P-core)", ES_ICELAKE, REL, N_LAKEFIELD },
	[U_LAKEFIELD_E] = { "lakefield_e", "Tremont (Lakefield E-core)", ES_TREMONT, REL, N_LAKEFIELD },
	[U_ADL_P] = { "goldencove", "Golden Cove (Alder Lake P-core)", ES_GOLDENCOVE, V, 0 },
	[U_ADL_E] = { "gracemont", "Gracemont (Alder Lake E-core)", ES_GRACEMONT, V, 0 },
	[U_RPL_P] = { "raptorcove", "Raptor Cove (Raptor Lake P-core)", ES_GOLDENCOVE, V, 0 },
	[U_RPL_E] = { "gracemont", "Gracemont (Raptor Lake E-core)", ES_GRACEMONT, V, 0 },
	[U_BARTLETT] = { "raptorcove", "Raptor Cove (Bartlett Lake, P-cores only)", ES_GOLDENCOVE, REL, N_BARTLETT },
	[U_SPR] = { "sapphirerapids", "Golden Cove (Sapphire Rapids)", ES_SAPPHIRERAPIDS, V, 0 },
	[U_EMR] = { "emeraldrapids", "Raptor Cove (Emerald Rapids)", ES_EMERALDRAPIDS, V, 0 },
	[U_MTL_P] = { "redwoodcove", "Redwood Cove (Meteor Lake P-core)", ES_REDWOODCOVE, V, 0 },
	[U_MTL_E] = { "crestmont", "Crestmont (Meteor Lake E-core)", ES_CRESTMONT, V, 0 },
	[U_ARLU_P] = { "redwoodcove", "Redwood Cove (Arrow Lake-U P-core)", ES_REDWOODCOVE, V, 0 },
	[U_ARLU_E] = { "crestmont", "Crestmont (Arrow Lake-U E-core)", ES_CRESTMONT, V, 0 },
	[U_GNR] = { "graniterapids", "Redwood Cove (Granite Rapids)", ES_GRANITERAPIDS, V, 0 },
	[U_ARL_P] = { "lioncove", "Lion Cove (Arrow Lake P-core)", ES_LIONCOVE, V, 0 },
	[U_ARL_E] = { "skymont", "Skymont (Arrow Lake E-core)", ES_SKYMONT, V, 0 },
	[U_ARLH_LPE] = { "crestmont", "Crestmont (Arrow Lake-H low-power E-core)", ES_CRESTMONT_ARL, V, 0 },
	[U_LNL_P] = { "lioncove", "Lion Cove (Lunar Lake P-core)", ES_LIONCOVE_LNL, V, 0 },
	[U_LNL_E] = { "skymont", "Skymont (Lunar Lake E-core)", ES_SKYMONT_LNL, V, 0 },
	[U_NVL_P] = { "coyotecove", "Coyote Cove (Nova Lake P-core)", ES_COYOTECOVE, V, 0 },
	[U_NVL_E] = { "arcticwolf", "Arctic Wolf (Nova Lake E-core)", ES_ARCTICWOLF, V, 0 },
	[U_KNL] = { "knl", "Knights Landing (Xeon Phi x200)", ES_KNL, V, 0 },
	[U_KNM] = { "knm", "Knights Mill (Xeon Phi 72x5)", ES_KNL, V, 0 },
	[U_BONNELL] = { "bonnell", "Bonnell", ES_BONNELL, V, 0 },
	[U_SALTWELL] = { "saltwell", "Saltwell (32 nm Bonnell)", ES_BONNELL, V, 0 },
	[U_SILVERMONT] = { "silvermont", "Silvermont", ES_SILVERMONT, V, 0 },
	[U_SOFIA] = { "silvermont", "Silvermont (SoFIA)", ES_SILVERMONT, REL, N_SILVERMONT },
	[U_AIRMONT] = { "airmont", "Airmont (14 nm Silvermont)", ES_SILVERMONT, V, 0 },
	[U_AIRMONT_NP] = { "airmont", "Airmont (Lightning Mountain)", ES_SILVERMONT, REL, N_SILVERMONT },
	[U_GOLDMONT] = { "goldmont", "Goldmont", ES_GOLDMONT, V, 0 },
	[U_GOLDMONT_PLUS] = { "goldmont_plus", "Goldmont Plus", ES_GOLDMONT_PLUS, V, 0 },
	[U_TREMONT] = { "tremont", "Tremont", ES_TREMONT, V, 0 },
	[U_ADLN] = { "gracemont", "Gracemont (Alder Lake-N)", ES_GRACEMONT, V, 0 },
	[U_SRF] = { "crestmont", "Crestmont (Sierra Forest)", ES_SIERRAFOREST, V, 0 },
	[U_P5] = { "p5", "P5 (Pentium)", UARCH_NO_EVENT_SET, NONE, N_P5 },
	[U_P5_MMX] = { "p5", "P5 (Pentium MMX)", UARCH_NO_EVENT_SET, NONE, N_P5 },
	[U_NETBURST] = { "netburst", "NetBurst (Pentium 4)", UARCH_NO_EVENT_SET, NONE, N_NETBURST },
	[U_K6] = { "k6", "K6 (AMD-K6)", UARCH_NO_EVENT_SET, NONE, N_K6 },
	[U_K6_2] = { "k6", "K6 (AMD-K6-2)", UARCH_NO_EVENT_SET, NONE, N_K6 },
	[U_K6_3] = { "k6", "K6 (AMD-K6-III)", UARCH_NO_EVENT_SET, NONE, N_K6 },
	[U_K6_PLUS] = { "k6", "K6 (AMD-K6-2+, AMD-K6-III+)", UARCH_NO_EVENT_SET, NONE, N_K6 },
	[U_K8] = { "k8", "K8 (Family 0Fh)", ES_K8, V, 0 },
	[U_K10] = { "k10", "K10 (Family 10h)", ES_FAM10H, V, 0 },
	[U_LLANO] = { "llano", "K10 (Family 12h, Llano)", ES_FAM12H, V, 0 },
	[U_BOBCAT] = { "bobcat", "Bobcat (Family 14h)", ES_FAM14H, V, 0 },
	[U_BULLDOZER] = { "bulldozer", "Bulldozer (Family 15h)", ES_FAM15H, V, 0 },
	[U_PILEDRIVER] = { "piledriver", "Piledriver (Family 15h)", ES_FAM15H, V, 0 },
	[U_STEAMROLLER] = { "steamroller", "Steamroller (Family 15h)", ES_FAM15H, V, 0 },
	[U_EXCAVATOR] = { "excavator", "Excavator (Family 15h)", ES_FAM15H, V, 0 },
	[U_FAM15H] = { "fam15h", "Bulldozer-family core (Family 15h)", ES_FAM15H, V, 0 },
	[U_JAGUAR] = { "jaguar", "Jaguar (Family 16h)", ES_FAM16H, V, 0 },
	[U_PUMA] = { "puma", "Puma (Family 16h)", ES_FAM16H, V, 0 },
	[U_FAM16H] = { "fam16h", "Jaguar-family core (Family 16h)", ES_FAM16H, V, 0 },
	[U_ZEN] = { "zen", "Zen", ES_ZEN1, V, 0 },
	[U_ZEN_PLUS] = { "zen_plus", "Zen+", ES_ZEN1, V, 0 },
	[U_ZEN_50H] = { "zen", "Zen (Family 17h models 50h-5Fh)", ES_ZEN1, REL, N_ZEN1_50H },
	[U_ZEN2] = { "zen2", "Zen 2", ES_ZEN2, V, 0 },
	[U_ZEN3] = { "zen3", "Zen 3", ES_ZEN3, V, 0 },
	[U_ZEN3_PLUS] = { "zen3", "Zen 3+", ES_ZEN3, V, 0 },
	[U_ZEN4] = { "zen4", "Zen 4", ES_ZEN4, V, 0 },
	[U_ZEN5] = { "zen5", "Zen 5", ES_ZEN5, V, 0 },
	[U_DHYANA] = { "dhyana", "Zen (Hygon Dhyana)", ES_ZEN1, REL, N_HYGON },
	[U_HYGON_1X] = { "hygon", "Zen-derived (Hygon Family 18h models 1xh)", ES_ZEN1, REL, N_HYGON },
	[U_NEHALEM_EX] = { "nehalem", "Nehalem (Nehalem-EX)", ES_NEHALEM_EX, V, 0 },
	[U_WESTMERE_DP] = { "westmere", "Westmere (Westmere-EP, Gulftown)", ES_WESTMERE_DP, V, 0 },
	[U_WESTMERE_EX] = { "westmere", "Westmere (Westmere-EX)", ES_WESTMERE_EX, V, 0 },
	[U_SANDYBRIDGE_EP] = { "sandybridge", "Sandy Bridge (Sandy Bridge-EP)", ES_JAKETOWN, V, 0 },
	[U_IVYBRIDGE_EP] = { "ivybridge", "Ivy Bridge (Ivy Bridge-EP/EX)", ES_IVYTOWN, V, 0 },
	[U_HASWELL_EP] = { "haswell", "Haswell (Haswell-EP/EX)", ES_HASWELLX, V, 0 },
	[U_BROADWELL_EP] = { "broadwell", "Broadwell (Broadwell-EP/EX)", ES_BROADWELLX, V, 0 },
	[U_BROADWELL_DE] = { "broadwell", "Broadwell (Broadwell-DE)", ES_BROADWELLDE, V, 0 },
	[U_PTL_P] = { "cougarcove", "Cougar Cove (Panther Lake P-core)", ES_COUGARCOVE, V, 0 },
	[U_PTL_E] = { "darkmont", "Darkmont (Panther Lake E-core)", ES_DARKMONT, V, 0 },
	[U_ELKHARTLAKE] = { "tremont", "Tremont (Elkhart / Jasper Lake)", ES_ELKHARTLAKE, V, 0 },
	[U_GRR] = { "crestmont", "Crestmont (Grand Ridge)", ES_GRANDRIDGE, V, 0 },
	[U_CWF] = { "darkmont", "Darkmont (Clearwater Forest)", ES_CLEARWATER, V, 0 },
	[U_K7] = { "k7", "K7 (Athlon, Family 06h)", ES_K7, V, 0 },
	[U_GRIFFIN] = { "griffin", "Griffin (Family 11h)", ES_FAM11H, V, 0 },
};

#undef V
#undef REL
#undef NONE

#define ROW(v, fam, lo, hi, d) { v, CORE_TYPE_ANY, fam, lo, hi, 0x0, 0xf, d, UARCH_NATIVE_ANY }
#define I6(lo, hi, d) ROW(VENDOR_INTEL, 0x6, lo, hi, d)
#define I5(lo, hi, d) ROW(VENDOR_INTEL, 0x5, lo, hi, d)
/* One stepping range of a model. */
#define I6S(m, slo, shi, d) { VENDOR_INTEL, CORE_TYPE_ANY, 0x6, m, m, slo, shi, d, UARCH_NATIVE_ANY }
/* A hybrid model: one row per core type, and per native model ID where perfmon's mapfile lists one. */
#define HYB(fam, m, type, native, d) { VENDOR_INTEL, type, fam, m, m, 0x0, 0xf, d, native }
#define I6H(m, type, d) HYB(0x6, m, type, UARCH_NATIVE_ANY, d)
#define I6HN(m, type, native, d) HYB(0x6, m, type, native, d)

/* CPUID.1AH:EAX[23:0] of each hybrid generation, as perfmon's mapfile.csv gives them. */
#define NATIVE_ADL 0x000001u	/* Alder / Raptor Lake: Gracemont, Golden Cove */
#define NATIVE_MTL 0x000002u	/* Meteor Lake, Arrow Lake-U; Crestmont (Linux intel-family.h) */
#define NATIVE_LNL 0x000003u	/* Lunar Lake, Arrow Lake; Skymont (Linux intel-family.h) */
#define NATIVE_PTL 0x000004u	/* Panther Lake */
#define NATIVE_NVL 0x000005u	/* Nova Lake */

static const struct uarch_row table[] = {
	/* Intel P5 (AP-485): counters only through model-specific MSRs pmuboot does not drive. */
	I5(0x01, 0x03, U_P5),			/* P5, P54C, P24T OverDrive */
	I5(0x04, 0x04, U_P5_MMX),		/* P55C */
	I5(0x05, 0x07, U_P5),			/* OverDrives, P54CQS (mobile) */
	I5(0x08, 0x08, U_P5_MMX),		/* Tillamook (mobile) */

	/* Intel P6 family: PerfEvtSel0/1 + PerfCtr0/1, events of SDM Vol. 3B "P6 family". */
	I6(0x01, 0x01, U_PENTIUM_PRO),
	I6(0x03, 0x03, U_PENTIUM2),		/* Klamath */
	I6(0x05, 0x06, U_PENTIUM2),		/* Deschutes, Covington, Mendocino, Dixon */
	I6(0x07, 0x08, U_PENTIUM3),		/* Katmai, Coppermine */
	I6(0x0a, 0x0b, U_PENTIUM3),		/* Cascades, Tualatin */
	I6(0x09, 0x09, U_PENTIUM_M),		/* Banias */
	I6(0x0d, 0x0d, U_PENTIUM_M),		/* Dothan */
	I6(0x15, 0x15, U_TOLAPAI),		/* EP80579 (Todd Allen's cpuid and libcpuid tables: 6/15H) */
	/* Yonah has architectural PMU v1; its own events are in no pmuboot set, the architectural ones hold. */
	I6(0x0e, 0x0e, U_YONAH),

	/* Intel Core. */
	I6(0x0f, 0x0f, U_MEROM),		/* Merom, Conroe, Kentsfield, Woodcrest, Clovertown */
	I6(0x16, 0x16, U_MEROM),		/* Merom-L, Conroe-L */
	I6(0x17, 0x17, U_PENRYN),		/* Penryn, Wolfdale, Yorkfield, Harpertown */
	I6(0x1d, 0x1d, U_PENRYN),		/* Dunnington */
	I6(0x1a, 0x1a, U_NEHALEM),		/* Bloomfield, Gainestown */
	I6(0x1e, 0x1f, U_NEHALEM),		/* Lynnfield, Clarksfield; Auburndale */
	I6(0x2e, 0x2e, U_NEHALEM_EX),		/* Nehalem-EX (Beckton) */
	I6(0x25, 0x25, U_WESTMERE),		/* Clarkdale, Arrandale */
	I6(0x2c, 0x2c, U_WESTMERE_DP),		/* Gulftown, Westmere-EP */
	I6(0x2f, 0x2f, U_WESTMERE_EX),		/* Westmere-EX */
	I6(0x2a, 0x2a, U_SANDYBRIDGE),
	I6(0x2d, 0x2d, U_SANDYBRIDGE_EP),	/* Sandy Bridge-EP/E */
	I6(0x3a, 0x3a, U_IVYBRIDGE),
	I6(0x3e, 0x3e, U_IVYBRIDGE_EP),		/* Ivy Bridge-EP/EX */
	I6(0x3c, 0x3c, U_HASWELL),
	I6(0x3f, 0x3f, U_HASWELL_EP),		/* Haswell-EP/EX */
	I6(0x45, 0x46, U_HASWELL),		/* Haswell-ULT, GT3e */
	I6(0x3d, 0x3d, U_BROADWELL),
	I6(0x47, 0x47, U_BROADWELL),		/* Broadwell-H */
	I6(0x4f, 0x4f, U_BROADWELL_EP),		/* Broadwell-EP/EX */
	I6(0x56, 0x56, U_BROADWELL_DE),		/* Broadwell-DE */
	I6(0x4e, 0x4e, U_SKYLAKE),		/* Skylake-U/Y */
	I6(0x5e, 0x5e, U_SKYLAKE),		/* Skylake-S/H */
	I6(0x8e, 0x8e, U_KABYLAKE_L),		/* Kaby/Amber/Whiskey Lake, Coffee/Comet Lake-U */
	I6S(0x9e, 0x9, 0x9, U_KABYLAKE),	/* Kaby Lake-S/H */
	I6S(0x9e, 0xa, 0xd, U_COFFEELAKE),	/* Coffee Lake-S/H (and Refresh) */
	I6(0xa5, 0xa6, U_COMETLAKE),		/* Comet Lake-S/H, Comet Lake-U */
	I6(0x66, 0x66, U_CANNONLAKE),		/* Cannon Lake-U */
	/* perfmon: 6-55-[01234] Skylake-SP's file, 6-55-[56789ABCDEF] Cascade Lake's. */
	I6S(0x55, 0x0, 0x4, U_SKYLAKE_SP),
	I6S(0x55, 0x5, 0x7, U_CASCADELAKE),
	I6S(0x55, 0x8, 0x9, U_SKX_LATE),
	I6S(0x55, 0xa, 0xb, U_COOPERLAKE),
	I6S(0x55, 0xc, 0xf, U_SKX_LATE),
	I6(0x7d, 0x7e, U_ICELAKE),		/* Ice Lake, Ice Lake-U/Y */
	I6(0x9d, 0x9d, U_ICELAKE_NNPI),		/* Ice Lake NNPI (Spring Hill) */
	I6(0xa7, 0xa7, U_ROCKETLAKE),
	I6(0x6a, 0x6a, U_ICELAKE_SP),		/* Ice Lake-SP */
	I6(0x6c, 0x6c, U_ICELAKE_SP),		/* Ice Lake-D */
	I6(0x8c, 0x8d, U_TIGERLAKE),		/* Tiger Lake-U/Y, Tiger Lake-H */
	I6H(0x8a, CORE_TYPE_CORE, U_LAKEFIELD_P),
	I6H(0x8a, CORE_TYPE_ATOM, U_LAKEFIELD_E),
	I6HN(0x97, CORE_TYPE_CORE, NATIVE_ADL, U_ADL_P),	/* Alder Lake-S */
	I6HN(0x97, CORE_TYPE_ATOM, NATIVE_ADL, U_ADL_E),
	I6HN(0x9a, CORE_TYPE_CORE, NATIVE_ADL, U_ADL_P),	/* Alder Lake-P/U */
	I6HN(0x9a, CORE_TYPE_ATOM, NATIVE_ADL, U_ADL_E),
	I6HN(0xb7, CORE_TYPE_CORE, NATIVE_ADL, U_RPL_P),	/* Raptor Lake-S */
	I6HN(0xb7, CORE_TYPE_ATOM, NATIVE_ADL, U_RPL_E),
	I6HN(0xba, CORE_TYPE_CORE, NATIVE_ADL, U_RPL_P),	/* Raptor Lake-P/U */
	I6HN(0xba, CORE_TYPE_ATOM, NATIVE_ADL, U_RPL_E),
	I6HN(0xbf, CORE_TYPE_CORE, NATIVE_ADL, U_RPL_P),	/* Raptor Lake-S (C0/H0 die) */
	I6HN(0xbf, CORE_TYPE_ATOM, NATIVE_ADL, U_RPL_E),
	I6(0xd7, 0xd7, U_BARTLETT),		/* Bartlett Lake-S (Linux INTEL_BARTLETTLAKE) */
	I6(0x8f, 0x8f, U_SPR),
	I6(0xcf, 0xcf, U_EMR),
	I6HN(0xaa, CORE_TYPE_CORE, NATIVE_MTL, U_MTL_P),	/* Meteor Lake-H/U */
	I6HN(0xaa, CORE_TYPE_ATOM, NATIVE_MTL, U_MTL_E),
	I6HN(0xac, CORE_TYPE_CORE, NATIVE_MTL, U_MTL_P),	/* Meteor Lake-S */
	I6HN(0xac, CORE_TYPE_ATOM, NATIVE_MTL, U_MTL_E),
	I6HN(0xb5, CORE_TYPE_CORE, NATIVE_MTL, U_ARLU_P),	/* Arrow Lake-U */
	I6HN(0xb5, CORE_TYPE_ATOM, NATIVE_MTL, U_ARLU_E),
	I6(0xad, 0xae, U_GNR),			/* Granite Rapids-AP/SP, Granite Rapids-D */
	/* Arrow Lake-H: Lion Cove P-cores, Skymont E-cores and Crestmont low-power E-cores. */
	I6HN(0xc5, CORE_TYPE_CORE, NATIVE_LNL, U_ARL_P),
	I6HN(0xc5, CORE_TYPE_ATOM, NATIVE_LNL, U_ARL_E),
	I6HN(0xc5, CORE_TYPE_ATOM, NATIVE_MTL, U_ARLH_LPE),
	I6HN(0xc6, CORE_TYPE_CORE, NATIVE_LNL, U_ARL_P),	/* Arrow Lake-S/HX */
	I6HN(0xc6, CORE_TYPE_ATOM, NATIVE_LNL, U_ARL_E),
	I6HN(0xbd, CORE_TYPE_CORE, NATIVE_LNL, U_LNL_P),	/* Lunar Lake */
	I6HN(0xbd, CORE_TYPE_ATOM, NATIVE_LNL, U_LNL_E),
	I6HN(0xcc, CORE_TYPE_CORE, NATIVE_PTL, U_PTL_P),	/* Panther Lake (perfmon mapfile 6-CC, 6-D5, 6-E5) */
	I6HN(0xcc, CORE_TYPE_ATOM, NATIVE_PTL, U_PTL_E),
	I6HN(0xd5, CORE_TYPE_CORE, NATIVE_PTL, U_PTL_P),	/* Wildcat Lake */
	I6HN(0xd5, CORE_TYPE_ATOM, NATIVE_PTL, U_PTL_E),
	I6HN(0xe5, CORE_TYPE_CORE, NATIVE_PTL, U_PTL_P),
	I6HN(0xe5, CORE_TYPE_ATOM, NATIVE_PTL, U_PTL_E),
	/* Nova Lake: display family 12H (perfmon mapfile GenuineIntel-18-1 and -18-3, family in decimal). */
	HYB(0x12, 0x01, CORE_TYPE_CORE, NATIVE_NVL, U_NVL_P),
	HYB(0x12, 0x01, CORE_TYPE_ATOM, NATIVE_NVL, U_NVL_E),
	HYB(0x12, 0x03, CORE_TYPE_CORE, NATIVE_NVL, U_NVL_P),
	HYB(0x12, 0x03, CORE_TYPE_ATOM, NATIVE_NVL, U_NVL_E),

	/* Intel Xeon Phi (perfmon mapfile 6-57 and 6-85: the KNL file). */
	I6(0x57, 0x57, U_KNL),
	I6(0x85, 0x85, U_KNM),

	/* Intel Atom. */
	I6(0x1c, 0x1c, U_BONNELL),		/* Silverthorne, Diamondville, Pineview */
	I6(0x26, 0x26, U_BONNELL),		/* Lincroft */
	I6(0x27, 0x27, U_SALTWELL),		/* Penwell */
	I6(0x35, 0x36, U_SALTWELL),		/* Cloverview, Cedarview */
	I6(0x37, 0x37, U_SILVERMONT),		/* Bay Trail */
	I6(0x4a, 0x4a, U_SILVERMONT),		/* Merrifield */
	I6(0x4d, 0x4d, U_SILVERMONT),		/* Avoton, Rangeley */
	I6(0x5a, 0x5a, U_SILVERMONT),		/* Moorefield */
	I6(0x5d, 0x5d, U_SOFIA),		/* SoFIA */
	I6(0x4c, 0x4c, U_AIRMONT),		/* Cherry Trail, Braswell */
	I6(0x75, 0x75, U_AIRMONT_NP),		/* Lightning Mountain */
	I6(0x5c, 0x5c, U_GOLDMONT),		/* Apollo Lake */
	I6(0x5f, 0x5f, U_GOLDMONT),		/* Denverton */
	I6(0x7a, 0x7a, U_GOLDMONT_PLUS),	/* Gemini Lake */
	I6(0x86, 0x86, U_TREMONT),		/* Snow Ridge, Jacobsville */
	I6(0x96, 0x96, U_ELKHARTLAKE),		/* Elkhart Lake */
	I6(0x9c, 0x9c, U_ELKHARTLAKE),		/* Jasper Lake */
	I6(0xbe, 0xbe, U_ADLN),			/* Alder Lake-N, Twin Lake */
	I6(0xaf, 0xaf, U_SRF),			/* Sierra Forest */
	I6(0xb6, 0xb6, U_GRR),			/* Grand Ridge */
	I6(0xdd, 0xdd, U_CWF),			/* Clearwater Forest */

	/* Intel NetBurst: ESCR/CCCR performance monitoring, for which pmuboot has no event set or driver. */
	ROW(VENDOR_INTEL, 0xf, 0x00, 0x06, U_NETBURST),

	/* AMD family 5 (AMD 20734, Embedded AMD-K6 BIOS Design Guide 23913): the K6, no counters. */
	ROW(VENDOR_AMD, 0x05, 0x06, 0x07, U_K6),
	ROW(VENDOR_AMD, 0x05, 0x08, 0x08, U_K6_2),
	ROW(VENDOR_AMD, 0x05, 0x09, 0x09, U_K6_3),
	ROW(VENDOR_AMD, 0x05, 0x0d, 0x0d, U_K6_PLUS),

	/* AMD: the BKDG/PPR model ranges of each family. */
	ROW(VENDOR_AMD, 0x06, 0x00, 0xff, U_K7),	/* Athlon, Duron, Athlon XP/MP */
	ROW(VENDOR_AMD, 0x0f, 0x00, 0xff, U_K8),
	ROW(VENDOR_AMD, 0x10, 0x00, 0xff, U_K10),
	ROW(VENDOR_AMD, 0x11, 0x00, 0xff, U_GRIFFIN),	/* Turion X2 Ultra, Puma platform */
	ROW(VENDOR_AMD, 0x12, 0x00, 0xff, U_LLANO),
	ROW(VENDOR_AMD, 0x14, 0x00, 0xff, U_BOBCAT),
	ROW(VENDOR_AMD, 0x15, 0x00, 0x01, U_BULLDOZER),	/* Zambezi, Interlagos, Valencia */
	ROW(VENDOR_AMD, 0x15, 0x02, 0x02, U_PILEDRIVER),	/* Vishera, Abu Dhabi, Seoul */
	ROW(VENDOR_AMD, 0x15, 0x03, 0x0f, U_FAM15H),
	ROW(VENDOR_AMD, 0x15, 0x10, 0x1f, U_PILEDRIVER),	/* Trinity, Richland */
	ROW(VENDOR_AMD, 0x15, 0x20, 0x2f, U_FAM15H),
	ROW(VENDOR_AMD, 0x15, 0x30, 0x3f, U_STEAMROLLER),	/* Kaveri, Godavari */
	ROW(VENDOR_AMD, 0x15, 0x40, 0x5f, U_FAM15H),
	ROW(VENDOR_AMD, 0x15, 0x60, 0x7f, U_EXCAVATOR),	/* Carrizo, Bristol Ridge, Stoney Ridge */
	ROW(VENDOR_AMD, 0x15, 0x80, 0xff, U_FAM15H),
	ROW(VENDOR_AMD, 0x16, 0x00, 0x0f, U_JAGUAR),		/* Kabini, Temash, Kyoto */
	ROW(VENDOR_AMD, 0x16, 0x10, 0x2f, U_FAM16H),		/* models outside the two BKDGs (26h seen) */
	ROW(VENDOR_AMD, 0x16, 0x30, 0x3f, U_PUMA),		/* Beema, Mullins */
	ROW(VENDOR_AMD, 0x16, 0x40, 0xff, U_FAM16H),
	ROW(VENDOR_AMD, 0x17, 0x00, 0x07, U_ZEN),		/* Summit Ridge, Whitehaven, Naples */
	ROW(VENDOR_AMD, 0x17, 0x08, 0x0f, U_ZEN_PLUS),	/* Pinnacle Ridge, Colfax */
	ROW(VENDOR_AMD, 0x17, 0x10, 0x17, U_ZEN),		/* Raven Ridge */
	ROW(VENDOR_AMD, 0x17, 0x18, 0x1f, U_ZEN_PLUS),	/* Picasso */
	ROW(VENDOR_AMD, 0x17, 0x20, 0x2f, U_ZEN),		/* Dali, Pollock */
	ROW(VENDOR_AMD, 0x17, 0x30, 0x3f, U_ZEN2),		/* Rome, Castle Peak */
	ROW(VENDOR_AMD, 0x17, 0x40, 0x4f, U_ZEN2),		/* 47h: the 4700S (Linux amd.c: 30h-4Fh Zen 2) */
	ROW(VENDOR_AMD, 0x17, 0x50, 0x5f, U_ZEN_50H),
	ROW(VENDOR_AMD, 0x17, 0x60, 0x7f, U_ZEN2),		/* Renoir, Lucienne, Matisse */
	ROW(VENDOR_AMD, 0x17, 0x84, 0x87, U_ZEN2),
	ROW(VENDOR_AMD, 0x17, 0x90, 0x91, U_ZEN2),		/* Van Gogh */
	ROW(VENDOR_AMD, 0x17, 0xa0, 0xaf, U_ZEN2),		/* Mendocino */
	ROW(VENDOR_AMD, 0x19, 0x00, 0x0f, U_ZEN3),		/* Milan, Chagall */
	ROW(VENDOR_AMD, 0x19, 0x10, 0x1f, U_ZEN4),		/* Genoa, Storm Peak */
	ROW(VENDOR_AMD, 0x19, 0x20, 0x2f, U_ZEN3),		/* Vermeer */
	ROW(VENDOR_AMD, 0x19, 0x30, 0x3f, U_ZEN3),		/* libpfm4 and Linux amd.c: 20h-5Fh Zen 3 */
	ROW(VENDOR_AMD, 0x19, 0x40, 0x4f, U_ZEN3_PLUS),	/* Rembrandt */
	ROW(VENDOR_AMD, 0x19, 0x50, 0x5f, U_ZEN3),		/* Cezanne, Barcelo */
	ROW(VENDOR_AMD, 0x19, 0x60, 0xaf, U_ZEN4),		/* Raphael, Phoenix, Hawk Point, Bergamo, Siena */
	ROW(VENDOR_AMD, 0x1a, 0x00, 0x2f, U_ZEN5),		/* Turin, Strix Point */
	ROW(VENDOR_AMD, 0x1a, 0x40, 0x4f, U_ZEN5),		/* Granite Ridge */
	ROW(VENDOR_AMD, 0x1a, 0x60, 0x7f, U_ZEN5),		/* Krackan Point, Strix Halo */

	/* Hygon: AMD Zen licensed as Family 18h (models 04h-10h named in Linux's amd_nb/EDAC). */
	ROW(VENDOR_HYGON, 0x18, 0x00, 0x0f, U_DHYANA),
	ROW(VENDOR_HYGON, 0x18, 0x10, 0x1f, U_HYGON_1X),
};

size_t uarch_table_count(void) { return ARRAY_SIZE(table); }
const struct uarch_row *uarch_table_at(size_t i) { return i < ARRAY_SIZE(table) ? &table[i] : NULL; }
const struct uarch_desc *uarch_desc_of(const struct uarch_row *row) { return &descs[row->desc]; }

const char *uarch_row_event_set(const struct uarch_row *row)
{
	uint8_t e = descs[row->desc].event_set;
	return e == UARCH_NO_EVENT_SET ? NULL : uarch_event_sets[e];
}

const char *uarch_desc_note(const struct uarch_desc *d)
{
	return d->note != N_NONE && d->note < ARRAY_SIZE(notes) ? notes[d->note] : NULL;
}

const char *uarch_basis_name(enum uarch_basis b)
{
	static const char *const names[] = {
		[BASIS_VENDOR] = "vendor", [BASIS_RELATED] = "related_core", [BASIS_NONE] = NULL,
		[BASIS_GENERIC] = "generic",
	};
	return (size_t)b < ARRAY_SIZE(names) ? names[b] : NULL;
}

const char *uarch_fallback_name(enum uarch_fallback f)
{
	static const char *const names[] = {
		[FALLBACK_NONE] = NULL, [FALLBACK_GENERIC] = "generic", [FALLBACK_ASSUMED_P_CORE] = "assumed_p_core",
		[FALLBACK_NATIVE_MODEL] = "unlisted_native_model", [FALLBACK_STEPPING] = "unlisted_stepping",
	};
	return (size_t)f < ARRAY_SIZE(names) ? names[f] : NULL;
}

static bool same_model(const struct uarch_row *t, const struct uarch_query *q)
{
	return t->vendor == q->vendor && t->family == q->family && q->model >= t->model_lo && q->model <= t->model_hi;
}

static bool same_stepping(const struct uarch_row *t, uint32_t stepping)
{
	return stepping >= t->step_lo && stepping <= t->step_hi;
}

static bool same_native(const struct uarch_row *t, uint32_t native)
{
	return t->native_model == UARCH_NATIVE_ANY || native == UARCH_NATIVE_ANY || t->native_model == native;
}

static const char *core_type_name(uint8_t t)
{
	return t == CORE_TYPE_ATOM ? "Atom (E-core)" : t == CORE_TYPE_CORE ? "Core (P-core)" : "not enumerated";
}

static void use_row(struct uarch_match *m, const struct uarch_row *t)
{
	const struct uarch_desc *d = &descs[t->desc];
	m->row = t;
	m->uarch = d->name;
	m->key = d->key;
	m->event_set = uarch_row_event_set(t);
	m->basis = (enum uarch_basis)d->basis;
	m->note = uarch_desc_note(d);
}

static void mark(struct uarch_match *m, enum uarch_fallback kind)
{
	m->fallback = true;
	m->fallback_kind = kind;
}

/* No row of this model applies: the vendor's family-level fallback. */
static void family_fallback(const struct uarch_query *q, struct uarch_match *m, const char *why)
{
	m->row = NULL;
	m->note = NULL;
	mark(m, FALLBACK_GENERIC);
	if (q->vendor == VENDOR_INTEL) {
		m->uarch = "unknown Intel model";
		m->key = "intel_unknown";
		m->event_set = q->arch_pmu ? EVENT_SET_INTEL_FALLBACK : NULL;
		snprintf(m->reason, sizeof(m->reason), "%s family 0x%x model 0x%x; %s", why, q->family, q->model,
			 q->arch_pmu ? "using the architectural events of CPUID.0AH only"
				     : "no architectural PMU (CPUID.0AH) either, so no event set");
	} else if (q->vendor == VENDOR_AMD || q->vendor == VENDOR_HYGON) {
		m->uarch = q->vendor == VENDOR_AMD ? "unknown AMD model" : "unknown Hygon model";
		m->key = "amd_unknown";
		m->event_set = EVENT_SET_AMD_FALLBACK;
		snprintf(m->reason, sizeof(m->reason), "%s family 0x%x model 0x%x; using the legacy AMD core events only",
			 why, q->family, q->model);
	} else {
		m->uarch = "unknown vendor";
		m->key = "unknown";
		m->event_set = NULL;
		snprintf(m->reason, sizeof(m->reason), "unknown vendor: no microarchitecture table and no event set");
	}
	m->basis = m->event_set ? BASIS_GENERIC : BASIS_NONE;
}

/* Do the rows (with the given stepping filter) all name one event set? */
static bool one_event_set(const struct uarch_row *const *rows, size_t n)
{
	for (size_t i = 1; i < n; i++)
		if (descs[rows[i]->desc].event_set != descs[rows[0]->desc].event_set)
			return false;
	return n > 0;
}

/* The query's core type is Atom or Core, but no row of that type lists its native model ID. */
static void unlisted_native(const struct uarch_query *q, const struct uarch_row *const *rows, size_t n,
			    struct uarch_match *m)
{
	if (!one_event_set(rows, n)) {
		char why[120];
		snprintf(why, sizeof(why), "native model ID 0x%06x of this %s is not listed, and this model's %s cores use "
			 "different event sets:", q->native_model, core_type_name(q->core_type),
			 q->core_type == CORE_TYPE_ATOM ? "Atom" : "Core");
		family_fallback(q, m, why);
		return;
	}
	use_row(m, rows[0]);
	mark(m, FALLBACK_NATIVE_MODEL);
	snprintf(m->reason, sizeof(m->reason),
		 "native model ID 0x%06x (CPUID.1AH:EAX[23:0]) of this %s is not one listed for family 0x%x model 0x%x; "
		 "every listed core of this type uses event set %s", q->native_model, core_type_name(q->core_type),
		 q->family, q->model, m->event_set ? m->event_set : "(none)");
}

#define MODEL_ROWS_MAX 16

void uarch_identify(const struct uarch_query *q, struct uarch_match *m)
{
	const struct uarch_row *model_rows[MODEL_ROWS_MAX], *typed[MODEL_ROWS_MAX];
	size_t nmodel = 0, ntyped = 0;

	memset(m, 0, sizeof(*m));
	for (size_t i = 0; i < ARRAY_SIZE(table); i++) {
		const struct uarch_row *t = &table[i];
		if (!same_model(t, q))
			continue;
		if (nmodel < ARRAY_SIZE(model_rows))
			model_rows[nmodel++] = t;
		if (!same_stepping(t, q->stepping))
			continue;
		if (t->core_type != CORE_TYPE_ANY && t->core_type != q->core_type)
			continue;
		if (t->core_type != CORE_TYPE_ANY && ntyped < ARRAY_SIZE(typed))
			typed[ntyped++] = t;
		if (!same_native(t, q->native_model))
			continue;
		use_row(m, t);
		return;
	}
	if (nmodel == 0) {
		family_fallback(q, m, "not in the table:");
		return;
	}
	if (ntyped > 0) {
		unlisted_native(q, typed, ntyped, m);
		return;
	}

	/* A hybrid model whose core type is not enumerated (or unknown): the P-core row, marked as assumed. */
	for (size_t i = 0; i < nmodel; i++) {
		const struct uarch_row *t = model_rows[i];
		if (t->core_type == CORE_TYPE_CORE && same_stepping(t, q->stepping)) {
			use_row(m, t);
			mark(m, FALLBACK_ASSUMED_P_CORE);
			snprintf(m->reason, sizeof(m->reason),
				 "family 0x%x model 0x%x is a hybrid part but this CPU's core type is %s "
				 "(CPUID.1AH:EAX[31:24] = 0x%02x); assumed a P-core", q->family, q->model,
				 core_type_name(q->core_type), q->core_type);
			return;
		}
	}
	/* A known model, but not this stepping: its rows are used only if they all share an event set. */
	if (!one_event_set(model_rows, nmodel)) {
		family_fallback(q, m, "stepping not in the table, and this model's steppings use different event sets:");
		return;
	}
	use_row(m, model_rows[0]);
	m->uarch = "unlisted stepping of a known model";
	mark(m, FALLBACK_STEPPING);
	snprintf(m->reason, sizeof(m->reason),
		 "stepping %u of family 0x%x model 0x%x is not in the table; every known stepping of this model uses "
		 "event set %s", q->stepping, q->family, q->model, m->event_set ? m->event_set : "(none)");
}

void uarch_lookup(enum cpu_vendor vendor, uint32_t family, uint32_t model, uint32_t stepping, uint8_t core_type,
		  bool arch_pmu, struct uarch_match *m)
{
	struct uarch_query q = { vendor, family, model, stepping, core_type, UARCH_NATIVE_ANY, arch_pmu };
	uarch_identify(&q, m);
}
