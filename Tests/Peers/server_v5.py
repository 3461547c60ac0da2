#!/usr/bin/env python3
"""python-socketio 5.x test server (Engine.IO v4 / Socket.IO v5) for Switchboard's interop tests.

Usage: server_v5.py --port 0 [--ping-interval 25] [--ping-timeout 20] [--quiet] [--watch-stdin]
Prints one line, ``READY <port>``, on stdout once it accepts connections; logs go to stderr.
CORS stays at python-socketio's default (requests with a foreign Origin are refused).

Namespaces ``/`` and ``/chat`` (the latter needs CONNECT auth ``{"token": "secret"}``).
Events: echo, ack, binary, server-ack, burst, kick, headers, later (see peer_common.py);
the connect handler emits ``welcome`` "hi", which python sends before the CONNECT reply.
"""

import peer_common
import socketio
from socketio.exceptions import ConnectionRefusedError


def authorize(namespace, environ, auth):
    if namespace == "/chat" and not (isinstance(auth, dict) and auth.get("token") == "secret"):
        # wire: 44/chat,{"message":"unauthorized","data":{"reason":"bad token"}}
        raise ConnectionRefusedError("unauthorized", {"reason": "bad token"})


def main():
    args = peer_common.parse_args(__doc__.splitlines()[0])
    peer_common.setup_logging(args)
    peer_common.patch_aiohttp_body_read()
    sio = socketio.AsyncServer(**peer_common.server_options(args))
    peer_common.install_handlers(sio, authorize)
    peer_common.run(sio, args)


if __name__ == "__main__":
    main()
