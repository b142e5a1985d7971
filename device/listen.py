"""The listening socket of `serve` and `demo`, taken before anything else is made.

uvicorn binds its own socket only once it runs, after the database was opened (created) and
the links printed; a port in use then came out as its raw log line ``[Errno 98] ...`` and
exit status 3 (issue 32, 10). Binding first makes a port in use one line, status 2, with
nothing created.
"""

from __future__ import annotations

import errno
import socket
from typing import Any

from device.errors import UserError


def bind(host: str, port: int) -> socket.socket:
    """A socket bound to ``host``:``port`` for the server, or UserError saying what to do."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM,
                                   flags=socket.AI_PASSIVE)
    except OSError:
        raise UserError(f"--host {host}: no such address (try 127.0.0.1 or 0.0.0.0)") \
            from None
    family, kind, proto, _, address = infos[0]
    sock = socket.socket(family, kind, proto)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn does
    try:
        sock.bind(address)
    except OSError as exc:
        sock.close()
        if exc.errno == errno.EADDRINUSE:
            message = (f"port {port} is in use on {host} (another dicetable serve or demo?): "
                       "stop it, or choose another port with --port")
        elif exc.errno == errno.EACCES:
            message = f"port {port} needs more rights than this user has: use --port 1024 or more"
        elif exc.errno == errno.EADDRNOTAVAIL:
            message = f"--host {host} is not an address of this machine (try 0.0.0.0)"
        else:
            message = f"cannot listen on {host}:{port}: {exc.strerror or exc}"
        raise UserError(message) from None
    sock.set_inheritable(True)
    return sock


def serve(app: Any, sock: socket.socket, host: str, port: int) -> None:
    """Run the app on the bound socket until Ctrl-C."""
    import uvicorn

    config = uvicorn.Config(app, host=host, port=port, log_level="warning")
    uvicorn.Server(config).run(sockets=[sock])
