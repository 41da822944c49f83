"""The network boot root (tools/mknetboot.sh, make netboot) and run-qemu's --netboot arguments."""
import os
import shutil
import subprocess
import sys
import tempfile


def run(*args, cwd=None):
    p = subprocess.run(list(args), capture_output=True, text=True, cwd=cwd, timeout=120)
    return p.returncode, p.stdout, p.stderr


def read(path):
    with open(path, "rb") as f:
        return f.read()


def test_netboot_root_layout(ctx):
    d = tempfile.mkdtemp(prefix="pmuboot-netboot-")
    try:
        tool = os.path.join(ctx.root, "tools", "mknetboot.sh")
        root = os.path.join(d, "root")
        cfg = os.path.join(d, "lab.cfg")
        with open(cfg, "w") as f:
            f.write("bench=ref\n")
        rc, out, err = run(tool, "--efi", ctx.efi, "--cfg", cfg, "--out", root)
        assert rc == 0, err
        assert sorted(os.listdir(root)) == ["BOOTX64.EFI", "README.txt", "pmuboot.cfg"], os.listdir(root)
        assert read(os.path.join(root, "BOOTX64.EFI")) == read(ctx.efi)
        assert read(os.path.join(root, "pmuboot.cfg")) == b"bench=ref\n"
        readme = read(os.path.join(root, "README.txt")).decode()
        # The README says how to serve it and how the machines find their own files.
        for want in ("dhcp-match=set:efi64,option:client-arch,7", "dhcp-boot=tag:efi64,BOOTX64.EFI",
                     "dhcp-option-force=tag:efihttp,60,HTTPClient", "option arch = 00:07", "Kea",
                     "pmuboot-<UUID>.cfg", "pmuboot-<MAC>.cfg", "Boot.HttpBootUri", "upload=http://"):
            assert want in readme, want
        # Again, with the default config: the lab's per-machine files stay, the three are rewritten.
        machine = os.path.join(root, "pmuboot-525400123456.cfg")
        with open(machine, "w") as f:
            f.write("reps=5\n")
        rc, _, err = run(tool, "--efi", ctx.efi, "--out", root)
        assert rc == 0, err
        assert read(machine) == b"reps=5\n"
        assert read(os.path.join(root, "pmuboot.cfg")) == read(os.path.join(ctx.root, "tools", "pmuboot.cfg.default"))
        assert not [n for n in os.listdir(root) if n.startswith(".")], os.listdir(root)
        # Refusals name what is wrong.
        rc, _, err = run(tool, "--efi", os.path.join(d, "nope.efi"), "--out", os.path.join(d, "x"))
        assert rc != 0 and "does not exist" in err and not os.path.exists(os.path.join(d, "x")), err
        rc, _, err = run(tool, "--efi", ctx.efi, "--out", cfg)
        assert rc != 0 and "not a directory" in err, err
        rc, _, err = run(tool, "--bogus")
        assert rc != 0 and "unknown argument" in err, err
    finally:
        shutil.rmtree(d)


def test_netboot_needs_only_the_image_packages(ctx):
    rc, out, err = run(os.path.join(ctx.root, "tools", "deps.sh"), "--for", "netboot", "--list")
    assert rc == 0, err
    pkgs = {line.split()[0] for line in out.splitlines()}
    assert {"gcc", "nasm", "gnu-efi", "binutils", "make"} <= pkgs, pkgs
    assert not pkgs & {"qemu-system-x86", "ovmf", "mtools", "xorriso"}, pkgs


def test_run_qemu_netboot_arguments_are_checked(ctx):
    d = tempfile.mkdtemp(prefix="pmuboot-netboot-args-")
    try:
        empty = os.path.join(d, "empty")
        os.makedirs(empty)
        img = os.path.join(d, "disk.img")
        with open(img, "wb") as f:
            f.write(b"\0" * 512)
        cases = [(["--netboot", "--usb", img], "boots no disk"),
                 (["--netboot", os.path.join(d, "missing")], "not a directory"),
                 (["--netboot", empty], "BOOTX64.EFI"),
                 (["--netboot", d, "--opt", "reps=5"], None)]
        shutil.copyfile(ctx.efi, os.path.join(d, "BOOTX64.EFI"))
        cases[-1] = (["--netboot", d, "--opt", "reps=5"], "serves DIR as it is")
        for args, want in cases:
            p = subprocess.run([sys.executable, os.path.join(ctx.root, "tools", "run-qemu"), *args],
                               capture_output=True, text=True, timeout=30, cwd=ctx.root)
            lines = p.stderr.splitlines()
            assert p.returncode == 2 and len(lines) == 1 and want in lines[0], (args, p.returncode, lines)
    finally:
        shutil.rmtree(d)
