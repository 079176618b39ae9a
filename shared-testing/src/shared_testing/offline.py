"""Keep tests offline: any socket connection to a non-loopback address raises at once."""

from __future__ import annotations

import ipaddress
import os
import socket
from typing import Any

OFFLINE_ENV = {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"}


class NetworkAccessError(OSError):
    """A test tried to reach the network beyond loopback."""


def _is_loopback(address: Any) -> bool:
    if not isinstance(address, tuple) or not address:
        return True  # AF_UNIX paths and other families are local by construction
    host = str(address[0])
    if host in ("localhost", ""):
        return True
    try:
        return ipaddress.ip_address(host.split("%")[0]).is_loopback
    except ValueError:
        return False  # an unresolved host name: not loopback


def _guarded(real: Any) -> Any:
    def connect(self: socket.socket, address: Any) -> Any:
        if self.family in (socket.AF_INET, socket.AF_INET6) and not _is_loopback(address):
            raise NetworkAccessError(
                f"tests run offline: a connection to {address!r} was blocked by shared-testing "
                "(only loopback addresses are allowed; make data locally or serve it on 127.0.0.1)"
            )
        return real(self, address)

    return connect


def install() -> tuple[Any, Any]:
    """Set the hubs' offline variables and guard ``socket.connect``/``connect_ex`` in this process.

    Returns the previous pair of methods, for :func:`uninstall` (nested pytest runs restore in order).
    """
    os.environ.update(OFFLINE_ENV)
    previous = (socket.socket.connect, socket.socket.connect_ex)
    socket.socket.connect = _guarded(previous[0])  # type: ignore[method-assign]
    socket.socket.connect_ex = _guarded(previous[1])  # type: ignore[method-assign]
    return previous


def uninstall(previous: tuple[Any, Any]) -> None:
    socket.socket.connect, socket.socket.connect_ex = previous  # type: ignore[method-assign]
