"""AMD counter restrictions by family.  libpfm4's tables carry none; these come from the BKDGs
and PPRs (Linux arch/x86/events/amd/core.c summarises the same rules, see docs/events.md).

counters(family, event, umask) -> (mask, pair):
  mask  allowed PERF_CTL indices (0 = any)
  pair  True for Fam17h+ "large increment per cycle" events, which need the merge event on the
        odd counter next to them (PPR 55803 2.1.15.3; pmuboot does not drive merged pairs)
"""

PMC0 = 0x01
PMC20 = 0x07    # PERF_CTL[2:0]
PMC3 = 0x08
PMC30 = 0x09    # PERF_CTL0 or PERF_CTL3
PMC50 = 0x3F    # any of the six
PMC53 = 0x38    # PERF_CTL[5:3]
NONE = -1       # the BKDG forbids this combination on every counter


def fam15h(event, umask):
    """BKDG 42301 (Family 15h Models 00h-0Fh) 3.24 / 2.7.1: which PERF_CTL each event may use,
    by the event select's unit (bits 7:4) and a few individual events."""
    unit = event & 0xF0
    ones = bin(umask).count("1")
    if unit in (0x00, 0x10):                    # floating point
        if event == 0x000 and (umask & 0xF0) and (umask & 0x0F):
            return PMC3
        if event == 0x004 and ones > 1:
            return PMC3
        if event in (0x003, 0x00B, 0x00D):
            return PMC3
        return PMC53
    if unit in (0x20, 0x30, 0x40, 0x50, 0xC0):  # load/store, data cache, execution
        if event in (0x023, 0x043, 0x045, 0x046, 0x054, 0x055):
            return PMC20
        if event == 0x02D:
            return PMC3
        if event == 0x02E:
            return PMC30
        if event == 0x031:
            return PMC20 if ones <= 1 else NONE
        if event == 0x1C0:
            return PMC53
        return PMC50
    if unit in (0x60, 0x70, 0x80, 0x90, 0xD0):  # combined unit, instruction cache, decode
        if event in (0x08F, 0x187, 0x188):
            return PMC0
        if 0x0DB <= event <= 0x0DF or event in (0x1D6, 0x1D8):
            return PMC50
        return PMC20
    return NONE                                 # 0xA0/0xB0 and northbridge units: not core events


def counters(family, event, umask):
    if family == 0x15:
        return fam15h(event, umask), False
    if family >= 0x17 and event == 0x003:
        return 0x15, True       # even counters 0, 2, 4, each merged with its odd neighbour
    return 0, False
