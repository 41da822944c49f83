"""QEMU: the memory hierarchy in the image under TCG: the cache record, and a short ladder.

Under TCG no figure means anything about silicon, so nothing here judges one: the
`cache` record must follow `cpu` with the geometry QEMU's CPUID gives, and the
ladder's variants (latency on 2 MiB pages in the image's own page tables, tlb on
4 KiB pages, bandwidth) must run to completion, labelled emulated, with their
`memory` objects and the arenas the memory map allowed in `bench_setup`.
"""
from testlib import describe
import qemurun


def ladder_boot(ctx):
    return ctx.boot("memory-ladder")


def test_cache_record_follows_cpu(ctx):
    res = ladder_boot(ctx)
    assert res.status == qemurun.OK, describe(res)
    types = [r["type"] for r in res.records()]
    assert types.index("cache") == types.index("cpu") + 1, types
    cache = res.first("cache")
    # The boot processor's record, before the topology is known: its APIC ID, no number yet.
    assert cache["cpu"] == {"n": None, "apic_id": 0}, cache["cpu"]
    assert cache["levels"] and all(l["size"] == l["ways"] * l["partitions"] * l["line"] * l["sets"]
                                   for l in cache["levels"]), cache
    assert cache["caches_from"] in ("cpuid_04h", "cpuid_02h", "cpuid_8000001dh", "cpuid_80000005h_6h"), cache
    assert "cache: L1 data" in res.log, describe(res)


def test_ladder_runs_emulated(ctx):
    res = ladder_boot(ctx)
    assert res.status == qemurun.OK, describe(res)
    setup = res.first("bench_setup")
    lad = setup["ladder"]
    # The image maps its own arenas: 2 MiB pages for the ring (QEMU's 512 MiB hold no 1 GiB arena), 4 KiB for tlb.
    assert lad["latency"]["arena"] == "2m" and lad["latency"]["page"] == 2 * 1024 * 1024, lad
    assert lad["latency"]["how"] == "own page tables, 2 MiB pages", lad
    assert lad["tlb"]["arena"] == "4k" and lad["tlb"]["page"] == 4096, lad
    assert lad["latency"]["size"] >= 16 << 20 and lad["tlb"]["size"] >= 16 << 20, lad
    assert lad["bandwidth"]["points"] == 2 and lad["vector"] in ("sse", "avx", "avx512"), lad
    benches = [b for b in res.records("bench") if b["kernel"] in ("latency", "tlb", "bandwidth")]
    got = [(b["kernel"], b["variant"]) for b in benches]
    assert got == [("latency", "16k"), ("latency", "1m"), ("latency", "16m"), ("tlb", "1m"), ("tlb", "16m"),
                   ("bandwidth", "read_l1"), ("bandwidth", "write_nt_dram")], got
    for b in benches:
        assert b["emulated"] is True, b
        m = b["memory"]
        assert m["size"] > 0 and m["arena_size"] >= m["size"], b
        assert b["cycles"]["n"] > 0 or b["exhausted"], b
    tlb = [b for b in benches if b["kernel"] == "tlb"]
    assert all(b["memory"]["versus"] is not None for b in tlb), tlb
    assert res.records("error") == [], res.records("error")
