"""What a process in the jail may not do even as root: open a file by its handle, which no path
names and the access trace therefore never sees (`open_by_handle_at`, the "shocker" door), mount
(a bind mount makes strace name the mount point, not what is read), or trace another process of
the attempt, such as the tracer. Run through the jail's own argv on
this machine's bubblewrap (docs/isolation.md, "Capabilities in the jail")."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

from evaluator.sandbox.base import JailSpec
from evaluator.sandbox.bwrap import DROPPED_CAPS
from evaluator.sandbox.launch import LaunchPolicy
from evaluator.sandbox.registry import get_jail
from tests.support import layers_or_skip, scratch_dir

# Bits of the capability set (linux/capability.h).
CAP_BITS = {
    "CAP_DAC_READ_SEARCH": 2,
    "CAP_SYS_MODULE": 16,
    "CAP_SYS_RAWIO": 17,
    "CAP_SYS_PTRACE": 19,
    "CAP_SYS_ADMIN": 21,
    "CAP_SYS_BOOT": 22,
    "CAP_SYS_RESOURCE": 24,
    "CAP_SYS_TIME": 25,
    "CAP_MKNOD": 27,
}

PROBE = textwrap.dedent(
    """\
    import ctypes, errno, os
    libc = ctypes.CDLL(None, use_errno=True)
    class Handle(ctypes.Structure):
        _fields_ = [("size", ctypes.c_uint), ("kind", ctypes.c_int), ("data", ctypes.c_ubyte * 128)]
    handle, mount_id = Handle(), ctypes.c_int()
    handle.size = 128
    assert libc.name_to_handle_at(-100, b".", ctypes.byref(handle), ctypes.byref(mount_id), 0) == 0
    directory = os.open(".", os.O_RDONLY | os.O_DIRECTORY)
    opened = libc.open_by_handle_at(directory, ctypes.byref(handle), os.O_RDONLY)
    print("open_by_handle_at", "ok" if opened >= 0 else errno.errorcode[ctypes.get_errno()])
    for line in open("/proc/self/status"):
        if line.startswith("CapEff:"):
            print("CapEff", line.split()[1])
    """
)


def _in_jail(workspace: Path) -> dict[str, str]:
    layers_or_skip(jail=True)
    spec = JailSpec(workspace=workspace, writable=(workspace,))
    # The interpreter itself, not a venv's link to it: a checkout under /tmp (a fresh clone in CI)
    # keeps its venv where the jail puts its own empty /tmp. The probe needs only the stdlib.
    python = os.path.realpath(sys.executable)
    argv = get_jail("bwrap").wrap([python, "-c", PROBE], spec)
    done = subprocess.run(argv, capture_output=True, text=True, timeout=60, check=True)
    return dict(line.split(" ", 1) for line in done.stdout.splitlines())


def test_a_file_cannot_be_opened_by_its_handle_in_the_jail() -> None:
    with scratch_dir() as workspace:
        seen = _in_jail(workspace)
    # The handle of the workspace itself, which the process may read by its path: refused all
    # the same, since it is the capability that is gone, not the file.
    assert seen["open_by_handle_at"] == "EPERM", seen


def test_the_jail_drops_the_capabilities_that_reach_past_the_trace() -> None:
    with scratch_dir() as workspace:
        effective = int(_in_jail(workspace)["CapEff"], 16)
    assert set(DROPPED_CAPS) == set(CAP_BITS)
    assert [name for name, bit in CAP_BITS.items() if effective >> bit & 1] == []


# Processes a tool call leaves behind in every way round 9 tried (a new session, a double fork,
# a new name, a nested user and pid namespace), each appending to a file in the workspace.
LEFT_BEHIND = """\
(setsid bash -c 'while :; do echo s >> left; sleep 0.02; done' &)
bash -c "bash -c 'exec -a kworker/0:1 bash -c \\"while :; do echo d >> left; sleep 0.02; done\\"' & exit"
(unshare -Urpf bash -c 'while :; do echo n >> left; sleep 0.02; done' &)
until [ "$(sort -u left 2>/dev/null | wc -l)" = 3 ]; do sleep 0.02; done
"""


def test_nothing_a_call_left_in_the_jail_outlives_it(tmp_path: Path) -> None:
    """Red team, round 9: the attempt's clean-up (`settle_left_processes`, shared by case and
    trigger attempts) relies on the jail's pid namespace: when its first process ends, the
    kernel kills every process in it and in the namespaces below it, whatever session, name
    or parent they have, so none of them writes after the attempt."""
    layers_or_skip(jail=True)
    with scratch_dir() as scratch:
        workspace = scratch / "ws"
        workspace.mkdir()
        spec = JailSpec(workspace=workspace, writable=(workspace,))
        argv = get_jail("bwrap").wrap(["bash", "-c", LEFT_BEHIND], spec)
        subprocess.run(argv, cwd=workspace, capture_output=True, timeout=60, check=True)
        left = workspace / "left"
        assert sorted(set(left.read_text().split())) == ["d", "n", "s"]
        size = left.stat().st_size
        subprocess.run(["sleep", "0.5"], check=True)
        assert left.stat().st_size == size


OOM_PROBE = textwrap.dedent(
    """\
    import os
    def write(value):
        try:
            with open("/proc/self/oom_score_adj", "w") as f:
                f.write(str(value))
            return "ok"
        except PermissionError:
            return "EACCES"
    start = int(open("/proc/self/oom_score_adj").read())
    print("raise", write(start + 100))
    print("lower", write(start - 100))
    with open("/dev/shm/.jail-probe", "w") as f:
        f.write("x")
    print("shm", "ok")
    """
)


def test_in_the_jail_an_oom_score_can_only_be_raised_and_dev_shm_is_its_own() -> None:
    """Why the trace allows a process's write of its own (or its child's) `oom_score_adj` in the
    jail (docs/isolation.md, "A browser in the jail"): without CAP_SYS_RESOURCE the kernel
    refuses a score below the one inherited, so the host's OOM killer cannot be pointed at
    another process. And the jail's /dev/shm is its own: what Chromium makes there never
    reaches the host's."""
    layers_or_skip(jail=True)
    with scratch_dir() as workspace:
        spec = JailSpec(workspace=workspace, writable=(workspace,))
        python = os.path.realpath(sys.executable)
        argv = get_jail("bwrap").wrap([python, "-c", OOM_PROBE], spec)
        done = subprocess.run(argv, capture_output=True, text=True, timeout=60, check=True)
    seen = dict(line.split(" ", 1) for line in done.stdout.splitlines())
    assert seen == {"raise": "ok", "lower": "EACCES", "shm": "ok"}, done.stderr
    assert not Path("/dev/shm/.jail-probe").exists()
    assert Path("/dev/shm") in LaunchPolicy(jail="bwrap").private_dirs()
    assert Path("/dev/shm") not in LaunchPolicy(jail="none").private_dirs()
