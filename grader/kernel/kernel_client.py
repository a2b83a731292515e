"""The grader's side of the connection to a submission's kernel: bounded, and wary of its data.

The kernel runs the student's code, which can reach the kernel's own session and sockets
(``get_ipython().kernel.session.send(...)``, or zmq directly with the key from the connection
file) and so send the grader any message it likes, skipping the in-kernel output cap. So:

* **size**: a message larger than ``max_message_bytes`` (its raw frames, counted before
  anything is decoded) is dropped, as if it had never been sent; the connection stays up, so
  nothing after it is lost. A single frame larger than :data:`BACKSTOP` times that is not even
  received (ZMQ's ``MAXMSGSIZE``, set on the context before the sockets connect), so the
  grader's memory stays bounded: ZMQ then drops the connection for good, the kernel's later
  output never arrives, and the notebook stops as for a stuck kernel (no credit after it);
* **form**: a message that does not decode (bad JSON, nesting deep enough to raise
  ``RecursionError``, a bad signature) or whose fields have the wrong types is dropped, as if
  it had never been sent, instead of raising inside nbclient and failing the submission.
"""

from __future__ import annotations

import time
from queue import Empty

import zmq
import zmq.asyncio
from jupyter_client.asynchronous import AsyncKernelClient
from jupyter_client.channels import AsyncZMQSocketChannel
from traitlets import Integer, Type, default

# A frame this many times max_message_bytes (256 MB at the course's 2 MB) is refused by ZMQ
# itself, before it is buffered: the grader's memory stays bounded even when a kernel sends a
# gigabyte in one frame.
BACKSTOP = 128

# Mime types whose value is JSON (a dict or a list) rather than text.
_JSON_MIME_SUFFIX = "json"


def _mime_bundle(data: object) -> bool:
    """``{mime type: text}``, or JSON for a ``...json`` mime type."""
    return isinstance(data, dict) and all(
        isinstance(key, str) and (isinstance(value, str) or (key.endswith(_JSON_MIME_SUFFIX)
                                                    and isinstance(value, dict | list)))
        for key, value in data.items())


_CONTENT_CHECKS = {
    "stream": lambda c: isinstance(c.get("name"), str) and isinstance(c.get("text"), str),
    "display_data": lambda c: _mime_bundle(c.get("data"))
    and isinstance(c.get("metadata", {}), dict),
    "error": lambda c: isinstance(c.get("ename"), str) and isinstance(c.get("evalue"), str)
    and isinstance(c.get("traceback", []), list)
    and all(isinstance(line, str) for line in c.get("traceback", [])),
    "status": lambda c: isinstance(c.get("execution_state"), str),
}
_CONTENT_CHECKS["execute_result"] = _CONTENT_CHECKS["display_data"]
_CONTENT_CHECKS["update_display_data"] = _CONTENT_CHECKS["display_data"]


def well_formed(msg: object) -> bool:
    """Whether a decoded message has the fields and types nbclient and the grader rely on."""
    if not isinstance(msg, dict):
        return False
    header, parent, content = msg.get("header"), msg.get("parent_header"), msg.get("content")
    if not (isinstance(header, dict) and isinstance(parent, dict) and isinstance(content, dict)
            and isinstance(msg.get("msg_type"), str) and isinstance(msg.get("metadata"), dict)
            and isinstance(header.get("msg_id"), str) and header.get("msg_type") == msg["msg_type"]
            and isinstance(parent.get("msg_id", ""), str)):
        return False
    check = _CONTENT_CHECKS.get(msg["msg_type"])
    return check is None or bool(check(content))


class WaryChannel(AsyncZMQSocketChannel):
    """A channel that drops messages over its size limit, before decoding them, and messages it
    cannot decode or whose form is wrong."""

    max_message_bytes = -1  # set by BoundedKernelClient: larger messages are dropped

    async def _recv(self, **kwargs) -> dict:
        """The next message, decoded only when its raw frames are within the size limit."""
        frames = await self.socket.recv_multipart(**kwargs)
        if 0 <= self.max_message_bytes < sum(map(len, frames)):
            raise ValueError("message over the size limit")  # dropped by get_msg
        _, signed = self.session.feed_identities(frames)
        return self.session.deserialize(signed)

    async def get_msg(self, timeout: float | None = None) -> dict:
        """The next well-formed message; ``queue.Empty`` after ``timeout`` seconds."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            left = None if deadline is None else max(0, deadline - time.monotonic())
            if not await self.socket.poll(None if left is None else int(left * 1000)):
                raise Empty
            try:
                msg = await self._recv()
            except (ValueError, TypeError, KeyError, RecursionError, UnicodeDecodeError,
                    OverflowError, AttributeError):
                continue  # too large, undecodable or badly signed: never sent, for grading
            if well_formed(msg):
                return msg


class BoundedKernelClient(AsyncKernelClient):
    """The kernel client the grader uses: size-capped sockets, malformed messages dropped."""

    max_message_bytes = Integer(
        -1, help="Bytes of one message read from the kernel; larger ones are refused (-1: any)."
    ).tag(config=True)

    shell_channel_class = Type(WaryChannel)
    iopub_channel_class = Type(WaryChannel)
    stdin_channel_class = Type(WaryChannel)
    control_channel_class = Type(WaryChannel)

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        # Every channel of this client drops messages over this client's limit.
        channel = type("WaryChannel", (WaryChannel,), {"max_message_bytes":
                                                       self.max_message_bytes})
        self.shell_channel_class = self.iopub_channel_class = channel
        self.stdin_channel_class = self.control_channel_class = channel

    @default("context")
    def _context_default(self) -> zmq.asyncio.Context:
        context = super()._context_default()
        if self.max_message_bytes >= 0:
            # Options set on the context apply to every socket it makes, before it connects.
            context.setsockopt(zmq.MAXMSGSIZE, BACKSTOP * self.max_message_bytes)
        return context
