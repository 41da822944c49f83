"""tests/testlib/shell.py - a FAT disk image that boots the image from the UEFI shell, as a lab engineer
types it: OVMF's boot manager finds no EFI/BOOT/BOOTX64.EFI and falls through to its built-in shell
(about 5 s more), which runs startup.nsh; the words after the program name reach the image as its load
options, as the shell passes them (EDK2's shell keeps the quotes there: docs/options.md, "Quoting")."""
import atexit
import os
import shutil
import subprocess
import tempfile

MT_ENV = dict(os.environ, MTOOLS_SKIP_CHECK="1")


def shell_disk(efi, command, files=None):
    """A disk image with efi at \\lab\\pmuboot.efi and startup.nsh running `command` there (a line of the
    shell: "pmuboot.efi reps=7 ..."); files maps more paths on the disk ("lab/pmuboot.cfg") to bytes or
    text.  The image is removed when the test run ends; its path is returned."""
    d = tempfile.mkdtemp(prefix="pmuboot-shell-")
    atexit.register(shutil.rmtree, d, True)
    img = os.path.join(d, "disk.img")
    mkfs = shutil.which("mkfs.fat") or "/usr/sbin/mkfs.fat"
    subprocess.run([mkfs, "-C", "-n", "SHELL", img, "4096"], check=True, capture_output=True)
    files = dict(files or {})
    files["startup.nsh"] = "fs0:\r\ncd \\lab\r\n" + command + "\r\n"
    cmds = [["mmd", "-i", img, "::/lab"], ["mcopy", "-i", img, efi, "::/lab/pmuboot.efi"]]
    for k, (name, data) in enumerate(sorted(files.items())):
        local = os.path.join(d, "file%d" % k)
        with open(local, "wb") as f:
            f.write(data.encode() if isinstance(data, str) else data)
        for parent in _parents(name):
            cmds.append(["mmd", "-D", "s", "-i", img, "::/" + parent])
        cmds.append(["mcopy", "-i", img, local, "::/" + name])
    for cmd in cmds:
        subprocess.run(cmd, check=True, capture_output=True, env=MT_ENV)
    return img


def _parents(name):
    """The folders above name other than lab/ (made first), outermost first."""
    parts = name.split("/")[:-1]
    return ["/".join(parts[:i + 1]) for i in range(len(parts)) if "/".join(parts[:i + 1]) != "lab"]
