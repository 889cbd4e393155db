"""Reading untrusted archives (.tar, .tar.gz/.tgz, .zip; a gzip of one file) in memory, within a budget.

Nothing is written to disk. Members are read only when wanted (YAML/JSON), each through a bounded
read, so a bomb (a small member inflating to gigabytes) stops at the budget instead of inflating
fully. A member named outside the archive (``..``, an absolute path) refuses the archive; links and
special files are reported, never followed.
"""

from __future__ import annotations

import gzip
import io
import re
import stat
import tarfile
import zipfile
import zlib
from dataclasses import dataclass, field
from typing import IO, BinaryIO, Callable, Optional

from scheduler_core.scenario.limits import Limits, megabytes

CHUNK = 1024 * 1024
_ZIP_MAGIC = (b"PK\x03\x04", b"PK\x05\x06")
_GZIP_MAGIC = b"\x1f\x8b"
_BZIP2_MAGIC = b"BZh"
_XZ_MAGIC = b"\xfd7zXZ\x00"
_DRIVE = re.compile(r"^[A-Za-z]:")


class ReadRefused(Exception):
    """The input cannot be read within its limits or safely; the message says which and, for a size
    limit, ends with "(Limits.<name>)" (the web app answers 413 for those)."""


@dataclass
class Budget:
    """What is left to read, shared by every path of one scenario."""

    limits: Limits
    read_bytes: int = 0  # YAML/JSON kept (Limits.max_bytes)
    unpacked_bytes: int = 0  # bytes inflated from archives, skipped members included (Limits.max_unpacked_bytes)
    files: int = 0  # entries met (Limits.max_files)

    def count_file(self, where: str) -> None:
        self.files += 1
        if self.files > self.limits.max_files:
            raise ReadRefused(f"{where}: more than {self.limits.max_files} files (Limits.max_files)")

    def inflate(self, size: int, where: str) -> None:
        self.unpacked_bytes += size
        if self.unpacked_bytes > self.limits.max_unpacked_bytes:
            raise ReadRefused(
                f"{where}: the archive unpacks to more than {megabytes(self.limits.max_unpacked_bytes)} "
                "(Limits.max_unpacked_bytes)"
            )

    def keep(self, size: int, where: str) -> None:
        self.read_bytes += size
        if self.read_bytes > self.limits.max_bytes:
            raise ReadRefused(
                f"{where}: the scenario's YAML/JSON is more than {megabytes(self.limits.max_bytes)} (Limits.max_bytes)"
            )


@dataclass(frozen=True, slots=True)
class Member:
    name: str  # the path inside the archive, '/'-separated
    data: bytes


@dataclass
class ArchiveContents:
    members: list[Member] = field(default_factory=list)  # the wanted files, read
    unread: list[str] = field(
        default_factory=list
    )  # files not wanted (logs, binaries, ...): not inflated when avoidable
    links: list[str] = field(default_factory=list)  # symbolic/hard links and special files: not followed


def archive_kind(head: bytes) -> Optional[str]:
    """ "zip", "tar" or "compressed" (gzip, bzip2, xz: a tar inside, or one file) from the first bytes."""
    if head.startswith(_ZIP_MAGIC):
        return "zip"
    if head.startswith((_GZIP_MAGIC, _BZIP2_MAGIC, _XZ_MAGIC)):
        return "compressed"
    if len(head) >= 262 and head[257:262] == b"ustar":
        return "tar"
    return None


def read_archive(
    stream: BinaryIO, where: str, kind: str, wanted: Callable[[str], bool], budget: Budget
) -> ArchiveContents:
    """The archive's wanted members in name order. ``where`` names the archive in messages."""
    try:
        if kind == "zip":
            contents = _read_zip(stream, where, wanted, budget)
        else:
            contents = (
                _read_tar(stream, where, wanted, budget)
                if _is_tar(stream, kind)
                else _read_single(stream, where, budget)
            )
    except (
        tarfile.TarError,
        zipfile.BadZipFile,
        zlib.error,
        EOFError,
        OSError,
        ValueError,
        NotImplementedError,
    ) as err:
        raise ReadRefused(f"{where}: not a readable archive ({err})") from None
    contents.members.sort(key=lambda m: m.name)
    return contents


def _is_tar(stream: BinaryIO, kind: str) -> bool:
    if kind == "tar":
        return True
    start = stream.tell()
    try:
        with tarfile.open(fileobj=stream, mode="r:*") as archive:
            archive.next()
        return True
    except tarfile.TarError:
        return False
    finally:
        stream.seek(start)


def _read_tar(stream: BinaryIO, where: str, wanted: Callable[[str], bool], budget: Budget) -> ArchiveContents:
    contents = ArchiveContents()
    with tarfile.open(fileobj=stream, mode="r:*") as archive:
        while True:
            info = archive.next()  # skips the previous member's data (inflating it: budgeted below)
            if info is None:
                return contents
            name = _safe_name(info.name, where)
            budget.count_file(f"{where}:{name}")
            if info.isdir():
                continue
            if not info.isfile():
                contents.links.append(name)  # symlink, hard link, device, fifo
                continue
            budget.inflate(info.size, f"{where}:{name}")
            if not wanted(name):
                contents.unread.append(name)
                continue
            budget.keep(info.size, f"{where}:{name}")
            reader = archive.extractfile(info)
            data = reader.read(info.size) if reader is not None else b""
            contents.members.append(Member(name, data))


def _read_zip(stream: BinaryIO, where: str, wanted: Callable[[str], bool], budget: Budget) -> ArchiveContents:
    contents = ArchiveContents()
    with zipfile.ZipFile(stream) as archive:
        for info in archive.infolist():
            name = _safe_name(info.filename, where)
            budget.count_file(f"{where}:{name}")
            if info.is_dir():
                continue
            file_type = stat.S_IFMT(info.external_attr >> 16)  # 0 when the zip records no Unix mode
            if file_type and file_type != stat.S_IFREG:
                contents.links.append(name)  # a symlink (its target is the member's data) or a special file
                continue
            if not wanted(name):
                contents.unread.append(name)  # never inflated
                continue
            if info.flag_bits & 0x1:
                raise ReadRefused(f"{where}:{name}: the member is encrypted")
            with archive.open(info) as member:
                contents.members.append(Member(name, _bounded_read(member, f"{where}:{name}", budget)))
    return contents


def _read_single(stream: BinaryIO, where: str, budget: Budget) -> ArchiveContents:
    """A compressed file that holds no tar: one file (``nodes.json.gz``)."""
    name = re.sub(r"\.(gz|bz2|xz)$", "", where.rsplit("/", 1)[-1]) or "data"
    budget.count_file(where)
    with _decompressor(stream) as member:
        return ArchiveContents(members=[Member(name, _bounded_read(member, where, budget))])


def _decompressor(stream: BinaryIO) -> BinaryIO:
    head = stream.read(6)
    stream.seek(0)
    if head.startswith(_GZIP_MAGIC):
        return gzip.GzipFile(fileobj=stream)  # type: ignore[return-value]
    if head.startswith(_BZIP2_MAGIC):
        import bz2

        return bz2.BZ2File(stream)  # type: ignore[return-value]
    import lzma

    return lzma.LZMAFile(stream)  # type: ignore[return-value]


def _bounded_read(member: IO[bytes], where: str, budget: Budget) -> bytes:
    """Reads in chunks, charging the budget as it goes: a bomb stops at the limit, not at its end."""
    chunks: list[bytes] = []
    while True:
        chunk = member.read(CHUNK)
        if not chunk:
            return b"".join(chunks)
        budget.inflate(len(chunk), where)
        budget.keep(len(chunk), where)
        chunks.append(chunk)


def _safe_name(name: str, where: str) -> str:
    """The member's path; one that points outside the archive refuses the archive: nothing is
    extracted here, but such a name is the mark of an archive made to overwrite files."""
    posix = name.replace("\\", "/")
    if posix.startswith("/") or _DRIVE.match(posix) or ".." in posix.split("/"):
        raise ReadRefused(
            f"{where}: member {name[:200]!r} points outside the archive (an absolute path or '..'): "
            "the archive is refused"
        )
    return posix.removeprefix("./")


def open_bytes(data: bytes) -> BinaryIO:
    return io.BytesIO(data)
