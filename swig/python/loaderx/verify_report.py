"""What `store.verify()` found: every record of the store read once and
checked against the checksum written with it.

    report = store.verify()
    if not report.ok:
        print(report.damaged, report.problems)

`records == verified + unverified + len(damaged)`. A record is unverified
when it reads back but has no checksum to compare against (written or
moved by a program that keeps none, such as loaderx 1.7.7); damaged when
its bytes fail their checksum, do not decode, or lie outside the store.
"""

import dataclasses
from typing import Any

__all__ = ["VerifyReport"]


@dataclasses.dataclass(frozen=True)
class VerifyReport:
    """The outcome of `verify()`, record by record."""

    records: int
    """Records examined: every record of the store."""
    verified: int
    """Records whose bytes match the checksum written with them."""
    unverified: int
    """Records that read back but have no checksum to check."""
    damaged: list[int]
    """The damaged records' indices, ascending."""
    problems: list[str]
    """What is wrong with the first few damaged records, one line each."""
    metadata_verified: bool
    """Whether store.zr (and dict.zr) matched checksums written with them;
    False for a store created by a program that keeps none, and for
    metadata adopted as found."""
    removed_records: int = 0
    """Records the store had and no longer has, with nothing this library
    did to explain it: meta.zr's length became smaller than checksums.lx's
    record of it (1.7.7's delete of the last records, or damage)."""
    metadata_problems: list[str] = dataclasses.field(default_factory=list)
    """Differences between checksums.lx and the files that cannot be told
    from damage, one line each; `store.accept_metadata_problems()` accepts
    them."""
    notes: list[str] = dataclasses.field(default_factory=list)
    """What is worth knowing but wrong with nothing."""

    @property
    def ok(self) -> bool:
        """No damaged record and no metadata problem."""
        return not self.damaged and not self.metadata_problems

    @classmethod
    def _from_native(cls, result: Any) -> "VerifyReport":
        return cls(records=int(result.records()),
                   verified=int(result.verified()),
                   unverified=int(result.unverified()),
                   damaged=[int(i) for i in result.damaged()],
                   problems=[str(p) for p in result.problems()],
                   metadata_verified=bool(result.metadata_verified()),
                   removed_records=int(result.removed_records()),
                   metadata_problems=[str(p)
                                      for p in result.metadata_problems()],
                   notes=[str(n) for n in result.notes()])
