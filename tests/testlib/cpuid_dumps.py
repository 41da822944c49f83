"""The real CPUID dumps of ../shared/cpuid-dumps/ as their README lists them, shared by
tests/host/test_identify.py (each is named right) and test_cpuid_fixtures.py (the table is the README's)."""


# file -> (vendor string, family, model, stepping): ../shared/cpuid-dumps/README.md's table (display values, hex).
README_TABLE = {
    "GenuineIntel0000617_P6_CPUID.txt": ("GenuineIntel", 0x6, 0x1, 7),
    "GenuineIntel0000651_P2_Descuthes_CPUID.txt": ("GenuineIntel", 0x6, 0x5, 1),
    "GenuineIntel0000673_P3_Katmai_CPUID.txt": ("GenuineIntel", 0x6, 0x7, 3),
    "GenuineIntel00006D8_PM_Dothan_CPUID.txt": ("GenuineIntel", 0x6, 0xD, 8),
    "GenuineIntel00006F6_Merom_CPUID.txt": ("GenuineIntel", 0x6, 0xF, 6),
    "GenuineIntel0010676_Penryn_CPUID.txt": ("GenuineIntel", 0x6, 0x17, 6),
    "GenuineIntel00106A4_Bloomfield_CPUID.txt": ("GenuineIntel", 0x6, 0x1A, 4),
    "GenuineIntel0020652_Clarkdale_CPUID.txt": ("GenuineIntel", 0x6, 0x25, 2),
    "GenuineIntel00206A7_SandyBridge_CPUID.txt": ("GenuineIntel", 0x6, 0x2A, 7),
    "GenuineIntel00306A9_IvyBridge_CPUID.txt": ("GenuineIntel", 0x6, 0x3A, 9),
    "GenuineIntel00306C3_Haswell_CPUID.txt": ("GenuineIntel", 0x6, 0x3C, 3),
    "GenuineIntel00306D4_Broadwell2_CPUID.txt": ("GenuineIntel", 0x6, 0x3D, 4),
    "GenuineIntel00506E3_Skylake_CPUID.txt": ("GenuineIntel", 0x6, 0x5E, 3),
    "GenuineIntel0050654_SkylakeXeon_CPUID9.txt": ("GenuineIntel", 0x6, 0x55, 4),
    "GenuineIntel00906E9_KabyLake_01_CPUID.txt": ("GenuineIntel", 0x6, 0x9E, 9),
    "GenuineIntel00706E5_IceLakeY_CPUID.txt": ("GenuineIntel", 0x6, 0x7E, 5),
    "GenuineIntel00806C1_TigerLake_01_CPUID.txt": ("GenuineIntel", 0x6, 0x8C, 1),
    "GenuineIntel00906A4_AlderLakeP_00_CPUID.txt": ("GenuineIntel", 0x6, 0x9A, 4),
    "GenuineIntel00B0671_RaptorLake_01_CPUID.txt": ("GenuineIntel", 0x6, 0xB7, 1),
    "GenuineIntel00806F8_SapphireRapids_05_CPUID.txt": ("GenuineIntel", 0x6, 0x8F, 8),
    "GenuineIntel00A06A4_MeteorLake_10_CPUID.txt": ("GenuineIntel", 0x6, 0xAA, 4),
    "GenuineIntel00106C2_Diamondville_CPUID.txt": ("GenuineIntel", 0x6, 0x1C, 2),
    "GenuineIntel0030673_Silvermont3_CPUID.txt": ("GenuineIntel", 0x6, 0x37, 3),
    "GenuineIntel00406C3_Braswell_CPUID.txt": ("GenuineIntel", 0x6, 0x4C, 3),
    "GenuineIntel00506C9_Goldmont2_CPUID.txt": ("GenuineIntel", 0x6, 0x5C, 9),
    "GenuineIntel00706A1_GoldmontPlus_CPUID2.txt": ("GenuineIntel", 0x6, 0x7A, 1),
    "GenuineIntel00906C0_JasperLake_01_CPUID.txt": ("GenuineIntel", 0x6, 0x9C, 0),
    "GenuineIntel00B06E0_AlderLakeN_02_CPUID.txt": ("GenuineIntel", 0x6, 0xBE, 0),
    "AuthenticAMD0020FB1_K8_Manchester_CPUID.txt": ("AuthenticAMD", 0xF, 0x2B, 1),
    "AuthenticAMD0100F21_K10_Barcelona_CPUID.txt": ("AuthenticAMD", 0x10, 0x2, 1),
    "AuthenticAMD0100F42_K10_Deneb_CPUID.txt": ("AuthenticAMD", 0x10, 0x4, 2),
    "AuthenticAMD0300F10_K12_Llano_CPUID.txt": ("AuthenticAMD", 0x12, 0x1, 0),
    "AuthenticAMD0500F10_K14_Bobcat_CPUID.txt": ("AuthenticAMD", 0x14, 0x1, 0),
    "AuthenticAMD0600F12_K15_Zambezi8C_CPUID.txt": ("AuthenticAMD", 0x15, 0x1, 2),
    "AuthenticAMD0600F20_K15_Vishera_CPUID.txt": ("AuthenticAMD", 0x15, 0x2, 0),
    "AuthenticAMD0630F01_K15_Kaveri_CPUID.txt": ("AuthenticAMD", 0x15, 0x30, 1),
    "AuthenticAMD0660F51_K15_BristolRidge_CPUID.txt": ("AuthenticAMD", 0x15, 0x65, 1),
    "AuthenticAMD0700F01_K16_Kabini_CPUID.txt": ("AuthenticAMD", 0x16, 0x0, 1),
    "AuthenticAMD0800F11_K17_Zen_CPUID4.txt": ("AuthenticAMD", 0x17, 0x1, 1),
    "AuthenticAMD0800F82_K17_PinnacleRidge_01_CPUID.txt": ("AuthenticAMD", 0x17, 0x8, 2),
    "AuthenticAMD0870F10_K17_Matisse_01_CPUID.txt": ("AuthenticAMD", 0x17, 0x71, 0),
    "AuthenticAMD0A20F12_K19_Vermeer_03_CPUID.txt": ("AuthenticAMD", 0x19, 0x21, 2),
    "AuthenticAMD0A60F12_K19_Raphael_04_CPUID.txt": ("AuthenticAMD", 0x19, 0x61, 2),
    "AuthenticAMD0B40F40_K20_GraniteRidge_02_CPUID.txt": ("AuthenticAMD", 0x1A, 0x44, 0),
    "HygonGenuine0900F02_Hygon_CPUID.txt": ("HygonGenuine", 0x18, 0x0, 2),
}


def readme_table(path):
    """file -> (vendor string, family, model, stepping) from a README in ../shared/cpuid-dumps/'s form."""
    table = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if len(cells) >= 5 and cells[0].endswith(".txt"):
                table[cells[0]] = (cells[1], int(cells[2], 16), int(cells[3], 16), int(cells[4]))
    return table
