"""A fixed CPU share for chosen processes: one cgroup each, capped by the CPU bandwidth
controller, so that several processes on one small machine act like processes on
machines of their own, each with a fraction of a core.

cgroup v2 (`/sys/fs/cgroup/cgroup.controllers` exists): `cpu.max` = "<quota> <period>"
in a child of /sys/fs/cgroup (the `cpu` controller enabled for children there). Else
cgroup v1: `cpu.cfs_quota_us` and `cpu.cfs_period_us` in a child of the `cpu` hierarchy
(/sys/fs/cgroup/cpu). Either needs root. Only the processes given are moved (all their
threads, and children forked after); `remove()` moves whatever is left back to the
cgroup it came from and deletes the cgroups.

    with CpuShares(0.33) as shares:
        shares.cap("node-1", pid)
        ...
        shares.stats()   # {"node-1": {"periods": ..., "throttled_periods": ..., "throttled_s": ...}}
"""

from __future__ import annotations

import os
import time
from pathlib import Path

V2_ROOT = Path("/sys/fs/cgroup")
V1_ROOT = Path("/sys/fs/cgroup/cpu")
PERIOD_US = 100_000


class CpuShareUnavailable(RuntimeError):
    pass


def cgroup_version() -> int:
    if (V2_ROOT / "cgroup.controllers").exists():
        return 2
    if (V1_ROOT / "cpu.cfs_quota_us").exists():
        return 1
    raise CpuShareUnavailable("no cgroup v2 at /sys/fs/cgroup, nor a v1 cpu hierarchy at /sys/fs/cgroup/cpu")


class CpuShares:
    """One cgroup per capped process, each allowed `share` of one core (0.33: a third)."""

    def __init__(self, share: float, period_us: int = PERIOD_US, prefix: str = "battlehall-bench"):
        if not 0 < share:
            raise ValueError("the CPU share must be above 0")
        self.share = share
        self.period_us = period_us
        self.quota_us = max(1000, round(share * period_us))  # the kernel's minimum quota is 1 ms
        self.version = cgroup_version()
        self.root = V2_ROOT if self.version == 2 else V1_ROOT
        self.prefix = f"{prefix}-{os.getpid()}"
        self.groups: dict[str, Path] = {}
        self.origins: dict[str, Path] = {}  # where each capped process was: it goes back there
        if self.version == 2:
            control = self.root / "cgroup.subtree_control"
            if "cpu" not in control.read_text().split():
                try:
                    control.write_text("+cpu")
                except OSError as exc:
                    raise CpuShareUnavailable(f"cannot enable the cpu controller in {control}: {exc}") from exc

    def __enter__(self) -> "CpuShares":
        return self

    def __exit__(self, *exc) -> None:
        self.remove()

    def cap(self, name: str, pid: int) -> Path:
        """Move process `pid` (all its threads) into a cgroup of its own, capped at the share."""
        group = self.root / f"{self.prefix}-{name}"
        try:
            group.mkdir()
        except OSError as exc:
            raise CpuShareUnavailable(f"cannot create {group} (root needed): {exc}") from exc
        self.groups[name] = group
        self.origins[name] = self.cgroup_of(pid)
        if self.version == 2:
            (group / "cpu.max").write_text(f"{self.quota_us} {self.period_us}")
        else:
            (group / "cpu.cfs_period_us").write_text(str(self.period_us))
            (group / "cpu.cfs_quota_us").write_text(str(self.quota_us))
        (group / "cgroup.procs").write_text(str(pid))
        return group

    def cgroup_of(self, pid: int) -> Path:
        """The cgroup `pid` is in, in the hierarchy used (from /proc/<pid>/cgroup)."""
        for line in Path(f"/proc/{pid}/cgroup").read_text().splitlines():
            _, controllers, path = line.split(":", 2)
            if (self.version == 2 and controllers == "") or (self.version == 1 and "cpu" in controllers.split(",")):
                return self.root / path.lstrip("/")
        return self.root

    def stats(self) -> dict[str, dict]:
        """Per capped process: the periods it ran in, those it was throttled in (out of
        quota before the period ended), and the time it was held back."""
        out = {}
        for name, group in self.groups.items():
            fields = dict(line.split() for line in (group / "cpu.stat").read_text().splitlines() if line.strip())
            throttled_s = (int(fields["throttled_usec"]) / 1e6 if "throttled_usec" in fields
                           else int(fields.get("throttled_time", 0)) / 1e9)
            out[name] = {"periods": int(fields.get("nr_periods", 0)),
                         "throttled_periods": int(fields.get("nr_throttled", 0)), "throttled_s": throttled_s}
        return out

    def remove(self) -> None:
        """Move what is left in the cgroups back where it came from, then delete them."""
        for name, group in list(self.groups.items()):
            if not group.exists():
                del self.groups[name]
                continue
            for _ in range(50):  # a process may fork while being moved: until none is left
                pids = (group / "cgroup.procs").read_text().split()
                if not pids:
                    break
                for pid in pids:
                    try:
                        (self.origins.get(name, self.root) / "cgroup.procs").write_text(pid)
                    except OSError:  # gone meanwhile
                        pass
            for attempt in range(50):  # EBUSY while a process moved out is still exiting
                try:
                    group.rmdir()
                    break
                except OSError:
                    if attempt == 49:
                        raise
                    time.sleep(0.1)
            del self.groups[name]
