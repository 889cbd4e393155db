"""The embedded mode's message broker: kombu's filesystem transport, with a message never seen by a
worker before it is whole.

kombu's own `_put` creates the message's file under its final name and then writes it, while `_get`
lists the folder and takes every file under such a name at once (the lock `_put` holds is advisory
and `_get` never asks for it). A worker polling in between reads an empty file, fails to decode it
and the message is gone: seen on 2-core machines about once in a thousand messages (a run waited
for the recovery sweep, SCHEDLAB_QUEUED_STALE_SECONDS, before it started). Here a message is
written under a name `_get` skips and renamed into place, which a reader sees whole or not at all;
and a worker claims a message by renaming it within its own folder, so that two workers on one
queue never both take it (kombu moves it to the temporary folder, a copy and a delete when that is
another file system).
"""

from __future__ import annotations

import os
import uuid
from queue import Empty
from time import monotonic_ns
from typing import Any

from kombu.exceptions import ChannelError
from kombu.transport import filesystem
from kombu.utils.json import dumps, loads

# Suffixes that take a file out of its queue: kombu's `_get` wants names ending in ".<queue>.msg".
WRITING = ".writing"
CLAIMED = ".claimed"


def message_name(queue: str) -> str:
    """A new message's name: the time first, so that a sorted listing is the queue's order. In
    nanoseconds and of one width (kombu's are in milliseconds: messages put in the same one came out
    in the order of their random parts)."""
    return f"{monotonic_ns():020d}_{uuid.uuid4()}.{queue}.msg"


def in_queue(filename: str, queue: str) -> bool:
    """Whether the file is a whole, unclaimed message of the queue (kombu's own test)."""
    return filename.partition(".")[2] == f"{queue}.msg"


class Channel(filesystem.Channel):
    # kombu's stubs give the base channel's `_put` and the filesystem one's different signatures.
    def _put(self, queue: str, payload: dict[str, Any], **kwargs: Any) -> None:  # type: ignore[override]
        final = os.path.join(self.data_folder_out, message_name(queue))
        partial = final + WRITING
        try:
            with open(partial, "wb") as out:
                out.write(dumps(payload).encode())
            os.replace(partial, final)
        except OSError as exc:
            raise ChannelError(f"Cannot add file {final!r} to directory") from exc

    def _get(self, queue: str, timeout: float | None = None) -> Any:
        folder = self.data_folder_in
        for filename in sorted(os.listdir(folder)):
            if not in_queue(filename, queue):
                continue
            path = os.path.join(folder, filename)
            claimed = path + CLAIMED
            try:
                os.rename(path, claimed)
            except OSError:  # another worker took it first
                continue
            try:
                with open(claimed, "rb") as message:
                    payload = message.read()
                os.remove(claimed)
            except OSError as exc:
                raise ChannelError(f"Cannot read file {claimed!r} from queue.") from exc
            return loads(payload.decode())
        raise Empty()


class Transport(filesystem.Transport):
    Channel = Channel
    # No host to name (kombu's "localhost" default made every connection warn that none was given).
    default_connection_params: dict[str, Any] = {}
