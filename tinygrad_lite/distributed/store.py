"""Key-value stores, as ``torch.distributed``'s: what ranks use to find each other and to
exchange small values before (or beside) a process group. ``HashStore`` lives in one process,
``FileStore`` in a file that processes on one machine share (locked while it is changed),
``TCPStore`` on a server that the master rank runs in a thread and every rank reaches over TCP,
``PrefixStore`` puts a store's keys under a prefix. Values are bytes (str is UTF-8 encoded);
``get`` and ``wait`` block until the keys exist, raising ``DistStoreError`` after the timeout.
"""

from __future__ import annotations

import fcntl
import os
import socket
import socketserver
import struct
import threading
import time
import weakref
from collections.abc import Callable
from datetime import timedelta
from typing import Any

from .errors import DistNetworkError, DistStoreError

__all__ = ["Store", "HashStore", "FileStore", "PrefixStore", "TCPStore"]

DEFAULT_TIMEOUT = timedelta(seconds=300)


def _bytes(value: Any) -> bytes:
    if isinstance(value, bytes | bytearray | memoryview):
        return bytes(value)
    if isinstance(value, str):
        return value.encode()
    if isinstance(value, list):  # PyTorch also takes a list of byte values
        return bytes(value)
    raise TypeError(f"Store: values are str or bytes, got {type(value).__name__}")


def _apply(data: dict[str, bytes], op: str, key: str, args: list[bytes]) -> bytes:
    """One changing operation on the key-value dict ``data``; its reply."""
    if op == "set":
        data[key] = args[0]
        return b""
    if op == "append":
        data[key] = data.get(key, b"") + args[0]
        return b""
    if op == "add":
        total = int(data.get(key, b"0")) + int(args[0])
        data[key] = str(total).encode()
        return data[key]
    if op == "compare_set":
        expected, desired = args
        current = data.get(key)
        if current is None:
            if expected == b"":
                data[key] = desired
                return desired
            return expected
        if current == expected:
            data[key] = desired
            return desired
        return current
    if op == "delete":
        return b"1" if data.pop(key, None) is not None else b"0"
    raise ValueError(f"Store: unknown operation {op!r}")


class Store:
    """The interface of every store (subclasses give ``_change``, ``_lookup`` and ``_keys``)."""

    def __init__(self, timeout: timedelta = DEFAULT_TIMEOUT) -> None:
        self._timeout = timeout

    # -- what a store implements ------------------------------------------------------------
    def _change(self, op: str, key: str, args: list[bytes]) -> bytes:
        raise NotImplementedError

    def _lookup(self, keys: list[str], timeout: timedelta) -> list[bytes]:
        """The keys' values, waiting up to ``timeout`` for them to exist."""
        raise NotImplementedError

    def _keys(self) -> list[str]:
        raise NotImplementedError

    # -- the interface ----------------------------------------------------------------------
    @property
    def timeout(self) -> timedelta:
        """How long ``get`` and ``wait`` wait."""
        return self._timeout

    def set_timeout(self, timeout: timedelta) -> None:
        self._timeout = timeout

    def set(self, key: str, value: Any) -> None:
        self._change("set", key, [_bytes(value)])

    def get(self, key: str) -> bytes:
        """The value of ``key``, once it is set."""
        return self._lookup([key], self._timeout)[0]

    def add(self, key: str, amount: int) -> int:
        """Add ``amount`` to the integer stored at ``key`` (0 when absent); the new value."""
        return int(self._change("add", key, [str(int(amount)).encode()]))

    def append(self, key: str, value: Any) -> None:
        self._change("append", key, [_bytes(value)])

    def compare_set(self, key: str, expected_value: Any, desired_value: Any) -> bytes:
        """Set ``key`` to ``desired_value`` if it holds ``expected_value`` (or is absent and
        ``expected_value`` is empty); returns the value it then holds (``expected_value`` when
        the key is absent and nothing was set)."""
        return self._change("compare_set", key, [_bytes(expected_value), _bytes(desired_value)])

    def multi_get(self, keys: list[str]) -> list[bytes]:
        return self._lookup(list(keys), self._timeout)

    def multi_set(self, keys: list[str], values: list[Any]) -> None:
        for key, value in zip(keys, values, strict=True):
            self.set(key, value)

    def wait(self, keys: list[str], timeout: timedelta | None = None) -> None:
        """Block until every key is set (``timeout``, default the store's)."""
        self._lookup(list(keys), self._timeout if timeout is None else timeout)

    def check(self, keys: list[str]) -> bool:
        """Whether every key is set, without waiting."""
        present = set(self._keys())
        return all(k in present for k in keys)

    def delete_key(self, key: str) -> bool:
        """Remove ``key``; whether it was there."""
        return self._change("delete", key, []) == b"1"

    def num_keys(self) -> int:
        return len(self._keys())

    def list_keys(self) -> list[str]:
        return sorted(self._keys())


def _timed_out(keys: list[str], timeout: timedelta) -> DistStoreError:
    return DistStoreError(f"Wait timeout after {int(timeout.total_seconds() * 1000)} ms, keys: "
                          f"{keys}")


class HashStore(Store):
    """A store in this process's memory (threads share it)."""

    def __init__(self) -> None:
        super().__init__()
        self._data: dict[str, bytes] = {}
        self._changed = threading.Condition()

    def _change(self, op: str, key: str, args: list[bytes]) -> bytes:
        with self._changed:
            reply = _apply(self._data, op, key, args)
            self._changed.notify_all()
        return reply

    def _lookup(self, keys: list[str], timeout: timedelta) -> list[bytes]:
        with self._changed:
            if not self._changed.wait_for(lambda: all(k in self._data for k in keys),
                                          timeout.total_seconds()):
                raise _timed_out(keys, timeout)
            return [self._data[k] for k in keys]

    def _keys(self) -> list[str]:
        with self._changed:
            return list(self._data)


# FileStore's format: records of (key, value), each a 4-byte length then the bytes
def _encode(data: dict[str, bytes]) -> bytes:
    parts = []
    for key, value in data.items():
        k = key.encode()
        parts += [struct.pack("<I", len(k)), k, struct.pack("<I", len(value)), value]
    return b"".join(parts)


def _decode(blob: bytes) -> dict[str, bytes]:
    data, at = {}, 0
    while at < len(blob):
        (n,) = struct.unpack_from("<I", blob, at)
        key = blob[at + 4:at + 4 + n].decode()
        at += 4 + n
        (m,) = struct.unpack_from("<I", blob, at)
        data[key] = blob[at + 4:at + 4 + m]
        at += 4 + m
    return data


class FileStore(Store):
    """A store in the file ``file_name``, shared by the processes that open it (each change
    under an exclusive lock of the file)."""

    def __init__(self, file_name: str, world_size: int = -1) -> None:
        super().__init__()
        self.path = str(file_name)
        self.world_size = world_size
        open(self.path, "ab").close()

    def _locked(self, change: Callable[[dict[str, bytes]], Any], write: bool) -> Any:
        with open(self.path, "r+b") as f:
            fcntl.flock(f, fcntl.LOCK_EX if write else fcntl.LOCK_SH)
            try:
                data = _decode(f.read())
                result = change(data)
                if write:
                    f.seek(0)
                    f.write(_encode(data))
                    f.truncate()
                    f.flush()
                    os.fsync(f.fileno())
                return result
            finally:
                fcntl.flock(f, fcntl.LOCK_UN)

    def _change(self, op: str, key: str, args: list[bytes]) -> bytes:
        return self._locked(lambda data: _apply(data, op, key, args), write=True)

    def _lookup(self, keys: list[str], timeout: timedelta) -> list[bytes]:
        deadline = time.monotonic() + timeout.total_seconds()
        pause = 0.001
        while True:
            found = self._locked(lambda data: [data.get(k) for k in keys], write=False)
            if all(v is not None for v in found):
                return found
            if time.monotonic() >= deadline:
                raise _timed_out(keys, timeout)
            time.sleep(pause)
            pause = min(pause * 2, 0.05)

    def _keys(self) -> list[str]:
        return self._locked(lambda data: list(data), write=False)


class PrefixStore(Store):
    """``store`` with every key put under ``prefix/``."""

    def __init__(self, prefix: str, store: Store) -> None:
        super().__init__(store.timeout)
        self.prefix = prefix
        self.underlying_store = store

    def _key(self, key: str) -> str:
        return f"{self.prefix}/{key}"

    def _change(self, op: str, key: str, args: list[bytes]) -> bytes:
        return self.underlying_store._change(op, self._key(key), args)

    def _lookup(self, keys: list[str], timeout: timedelta) -> list[bytes]:
        return self.underlying_store._lookup([self._key(k) for k in keys], timeout)

    def _keys(self) -> list[str]:
        start = self.prefix + "/"
        return [k[len(start):] for k in self.underlying_store._keys() if k.startswith(start)]


# TCPStore's messages: a count of byte strings, then each as a 4-byte length and its bytes.
# The first is the operation; a reply's first is b"ok" or b"error".
def _send(sock: socket.socket, items: list[bytes]) -> None:
    sock.sendall(struct.pack("<I", len(items)) +
                 b"".join(struct.pack("<I", len(i)) + i for i in items))


def _receive_exactly(sock: socket.socket, n: int) -> bytes:
    chunks, left = [], n
    while left:
        chunk = sock.recv(left)
        if not chunk:
            raise ConnectionError("TCPStore: the connection closed")
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def _receive(sock: socket.socket) -> list[bytes]:
    (count,) = struct.unpack("<I", _receive_exactly(sock, 4))
    items = []
    for _ in range(count):
        (n,) = struct.unpack("<I", _receive_exactly(sock, 4))
        items.append(_receive_exactly(sock, n))
    return items


class _Server(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, address: tuple[str, int]) -> None:
        self.store = HashStore()
        super().__init__(address, _Handler)


class _Handler(socketserver.BaseRequestHandler):
    """One client connection: requests answered in order until it closes."""

    def handle(self) -> None:
        store: HashStore = self.server.store  # type: ignore[attr-defined]
        while True:
            try:
                op, *args = _receive(self.request)
            except (ConnectionError, struct.error, OSError):
                return
            try:
                if op == b"get":
                    timeout = timedelta(milliseconds=int(args[0]))
                    reply = store._lookup([a.decode() for a in args[1:]], timeout)
                elif op == b"keys":
                    reply = [k.encode() for k in store._keys()]
                else:
                    reply = [store._change(op.decode(), args[0].decode(), args[1:])]
                _send(self.request, [b"ok", *reply])
            except DistStoreError as exc:
                _send(self.request, [b"error", str(exc).encode()])


class TCPStore(Store):
    """A store served by the master (``is_master=True``, which starts the server in a thread
    on ``port``; 0 picks a free port, then read ``.port``) and reached by every instance over
    TCP. With ``world_size`` and ``wait_for_workers`` the master's constructor waits until that
    many instances have connected."""

    _JOINED = "__tl_tcpstore_joined__"

    def __init__(self, host_name: str, port: int, world_size: int | None = None,
                 is_master: bool = False, timeout: timedelta = DEFAULT_TIMEOUT,
                 wait_for_workers: bool = True, multi_tenant: bool = False,
                 master_listen_fd: int | None = None, use_libuv: bool = True) -> None:
        super().__init__(timeout)
        self.host = host_name
        self.world_size = world_size
        self._server: _Server | None = None
        if is_master:
            self._server = _Server((host_name, int(port)))
            port = self._server.server_address[1]
            threading.Thread(target=self._server.serve_forever, daemon=True,
                             name="tl-tcpstore").start()
        self.port = int(port)
        self._lock = threading.Lock()
        self._sock = self._connect(timeout)
        weakref.finalize(self, _stop, self._sock, self._server).atexit = False
        self._change("add", self._JOINED, [b"1"])
        if is_master and wait_for_workers and world_size:
            deadline = time.monotonic() + timeout.total_seconds()
            while int(self._request([b"get", b"0", self._JOINED.encode()])[0]) < world_size:
                if time.monotonic() >= deadline:
                    raise DistStoreError(f"TCPStore: {world_size} workers did not all connect "
                                         f"within {timeout}")
                time.sleep(0.01)

    def _connect(self, timeout: timedelta) -> socket.socket:
        deadline = time.monotonic() + timeout.total_seconds()
        while True:
            try:
                return socket.create_connection((self.host, self.port), timeout=None)
            except OSError as exc:
                if time.monotonic() >= deadline:
                    raise DistNetworkError(f"TCPStore: cannot reach {self.host}:{self.port} "
                                           f"({exc})") from None
                time.sleep(0.05)

    def _request(self, items: list[bytes]) -> list[bytes]:
        with self._lock:
            _send(self._sock, items)
            status, *reply = _receive(self._sock)
        if status != b"ok":
            raise DistStoreError(reply[0].decode())
        return reply

    def _change(self, op: str, key: str, args: list[bytes]) -> bytes:
        return self._request([op.encode(), key.encode(), *args])[0]

    def _lookup(self, keys: list[str], timeout: timedelta) -> list[bytes]:
        ms = str(int(timeout.total_seconds() * 1000)).encode()
        return self._request([b"get", ms, *(k.encode() for k in keys)])

    def _keys(self) -> list[str]:
        return [k.decode() for k in self._request([b"keys"]) if k.decode() != self._JOINED]



def _stop(sock: socket.socket, server: _Server | None) -> None:
    """Close a dropped TCPStore's connection and stop its server (not at interpreter exit,
    where the server's daemon thread simply ends with the process)."""
    sock.close()
    if server is not None:
        server.shutdown()
        server.server_close()
