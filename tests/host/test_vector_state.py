"""Host: the vector state (docs/runtime.md "Vector state").

The image's interrupt and NMI handlers save no vector state, which is safe
only while no C code of the image uses a vector register: every function in
the linked image whose code names an xmm/ymm/zmm or opmask register must be
a measured kernel (bench/k_*.asm, the audit's loop), run inside the
interrupts-off window.  And on this host pmuboot-host reports the vector
extensions Linux enabled, agreeing with the kernel's own /proc/cpuinfo.
"""
import json
import os
import re
import subprocess

PREFIX = "@pmuboot "
# Code that may use vector registers: the measured kernels and the audit's known-answer loop.
KERNEL_SYMBOL = re.compile(r"^(bk_\w+|audit_loop\w*)(\.\w+)?$")
VECTOR_REG = re.compile(r"%([xyz]mm\d+|k[0-7])\b")


def test_only_kernels_touch_vector_registers_in_the_image(ctx):
    so = os.path.join(ctx.build, "pmuboot.so")
    p = subprocess.run(["objdump", "-d", "--no-show-raw-insn", so], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    users, fn = {}, None
    for line in p.stdout.splitlines():
        m = re.match(r"^[0-9a-f]+ <(.+)>:$", line)
        if m:
            fn = m.group(1)
        elif fn and VECTOR_REG.search(line):
            users.setdefault(fn, line.strip())
    # The vector store-forward kernels are there, so the scan sees what it looks for.
    assert "bk_sf_ymm_forward.top" in users and "bk_sf_zmm_forward.top" in users, sorted(users)
    others = {f: insn for f, insn in users.items() if not KERNEL_SYMBOL.match(f)}
    assert not others, f"vector registers outside the kernels (the NMI path saves none): {others}"


def test_host_reports_the_extensions_linux_enabled(ctx):
    p = ctx.run_host("identify", check=True)
    cpu = next(json.loads(l[len(PREFIX):]) for l in p.stdout.splitlines()
               if l.startswith(PREFIX) and '"type":"cpu"' in l)
    flags = set()
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("flags"):
                flags = set(line.split(":", 1)[1].split())
                break
    assert cpu["vector_who"].startswith("Linux"), cpu
    # Linux lists avx only when it enabled the state (it clears the flag otherwise).
    want = [v for v in ("avx", "avx2", "avx512f") if v in flags]
    assert cpu["vector"] == want, (cpu["vector"], sorted(flags & {"avx", "avx2", "avx512f"}))
    xcr0 = int(cpu["xcr0"], 16)
    assert xcr0 & 0x3 == 0x3 and cpu["xcr0_found"] == cpu["xcr0"], cpu
    if "avx512f" in want:
        assert xcr0 & 0xe0 == 0xe0, cpu
    assert f"cpu: vector extensions enabled: {', '.join(want) if want else 'SSE only'}" in p.stdout, p.stdout[-800:]
