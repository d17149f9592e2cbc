"""A minimal Kafka wire client for the differential tests: the same request bytes sent to a kacl
gateway and to a Kafka broker, the answers read field by field. Stdlib only; SASL/PLAIN.

Writers build a request body from typed parts (`W`); `Conn.call` sends it with the right header
(v2 for flexible versions, else v1) and returns a `R` over the response body (after the header:
v1 for flexible versions, except ApiVersions)."""

from __future__ import annotations

import socket
import struct
from typing import Callable, Optional


class W:
    """A request body under construction."""

    def __init__(self):
        self.b = bytearray()

    def i8(self, v):
        self.b += struct.pack(">b", v)
        return self

    def bool(self, v):
        return self.i8(1 if v else 0)

    def i16(self, v):
        self.b += struct.pack(">h", v)
        return self

    def i32(self, v):
        self.b += struct.pack(">i", v)
        return self

    def i64(self, v):
        self.b += struct.pack(">q", v)
        return self

    def uuid(self, v: bytes):
        assert len(v) == 16
        self.b += v
        return self

    def uvarint(self, v):
        while v >= 0x80:
            self.b.append((v & 0x7F) | 0x80)
            v >>= 7
        self.b.append(v)
        return self

    def string(self, s: Optional[str]):
        if s is None:
            return self.i16(-1)
        data = s.encode()
        self.i16(len(data))
        self.b += data
        return self

    def cstring(self, s: Optional[str]):
        if s is None:
            return self.uvarint(0)
        data = s.encode()
        self.uvarint(len(data) + 1)
        self.b += data
        return self

    def cbytes(self, data: Optional[bytes]):
        if data is None:
            return self.uvarint(0)
        self.uvarint(len(data) + 1)
        self.b += data
        return self

    def array(self, items, each: Callable[["W", object], object]):
        if items is None:
            return self.i32(-1)
        self.i32(len(items))
        for item in items:
            each(self, item)
        return self

    def carray(self, items, each: Callable[["W", object], object]):
        if items is None:
            return self.uvarint(0)
        self.uvarint(len(items) + 1)
        for item in items:
            each(self, item)
        return self

    def tags(self):
        return self.uvarint(0)


class R:
    """A response body being read."""

    def __init__(self, data: bytes):
        self.d = data
        self.p = 0

    def _take(self, n):
        if self.p + n > len(self.d):
            raise ValueError("response ends early at %d (+%d of %d)" % (self.p, n, len(self.d)))
        out = self.d[self.p:self.p + n]
        self.p += n
        return out

    def i8(self):
        return struct.unpack(">b", self._take(1))[0]

    def bool(self):
        return self.i8() != 0

    def i16(self):
        return struct.unpack(">h", self._take(2))[0]

    def i32(self):
        return struct.unpack(">i", self._take(4))[0]

    def i64(self):
        return struct.unpack(">q", self._take(8))[0]

    def uuid(self):
        return bytes(self._take(16))

    def uvarint(self):
        shift = value = 0
        while True:
            byte = self._take(1)[0]
            value |= (byte & 0x7F) << shift
            if byte < 0x80:
                return value
            shift += 7

    def string(self):
        n = self.i16()
        return None if n < 0 else self._take(n).decode()

    def cstring(self):
        n = self.uvarint()
        return None if n == 0 else self._take(n - 1).decode()

    def array(self, each: Callable[["R"], object]):
        n = self.i32()
        return None if n < 0 else [each(self) for _ in range(n)]

    def carray(self, each: Callable[["R"], object]):
        n = self.uvarint()
        return None if n == 0 else [each(self) for _ in range(n - 1)]

    def tags(self):
        for _ in range(self.uvarint()):
            self.uvarint()
            self._take(self.uvarint())
        return None


class Conn:
    """One connection, logged in with SASL/PLAIN (user None: PLAINTEXT), from `source_host`
    when given."""

    def __init__(self, bootstrap: str, user: Optional[str] = None, password: Optional[str] = None,
                 timeout: float = 20.0, source_host: Optional[str] = None):
        host, port = bootstrap.rsplit(":", 1)
        # source_host: the local address to connect from (any of 127/8 on loopback), so a
        # test can be a client inside or outside an ACL's CIDR range.
        source = (source_host, 0) if source_host else None
        self.sock = socket.create_connection((host, int(port)), timeout=timeout,
                                             source_address=source)
        self.correlation = 0
        if user is not None:
            r = self.call(17, 1, W().string("PLAIN"), flexible=False)
            assert r.i16() == 0, "SaslHandshake refused"
            token = b"\0" + user.encode() + b"\0" + password.encode()
            r = self.call(36, 1, _bytes(token), flexible=False)
            code, message = r.i16(), r.string()
            assert code == 0, "SASL/PLAIN login of %s failed: %s %s" % (user, code, message)

    def close(self):
        self.sock.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def send(self, api_key: int, version: int, body, flexible: bool) -> int:
        """Sends one request; returns its correlation id."""
        self.correlation += 1
        head = W().i16(api_key).i16(version).i32(self.correlation).string("kacl-differential")
        if flexible:
            head.tags()
        payload = bytes(head.b) + bytes(body.b if isinstance(body, W) else body)
        self.sock.sendall(struct.pack(">i", len(payload)) + payload)
        return self.correlation

    def receive(self, correlation: int, flexible_header: bool) -> R:
        size = struct.unpack(">i", self._exact(4))[0]
        r = R(self._exact(size))
        got = r.i32()
        assert got == correlation, "correlation id %d, expected %d" % (got, correlation)
        if flexible_header:
            r.tags()
        return r

    def call(self, api_key: int, version: int, body, flexible: bool) -> R:
        correlation = self.send(api_key, version, body, flexible)
        return self.receive(correlation, flexible and api_key != 18)

    def _exact(self, n: int) -> bytes:
        out = bytearray()
        while len(out) < n:
            chunk = self.sock.recv(n - len(out))
            if not chunk:
                raise ConnectionError("connection closed after %d of %d bytes" % (len(out), n))
            out += chunk
        return bytes(out)


def _bytes(token: bytes) -> W:
    w = W().i32(len(token))
    w.b += token
    return w
