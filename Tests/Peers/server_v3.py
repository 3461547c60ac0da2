#!/usr/bin/env python3
"""python-socketio 4.6.1 test server (Engine.IO v3 / Socket.IO v4) for Switchboard's interop tests.

Needs python-socketio==4.6.1, python-engineio==3.14.2 and aiohttp (Tests/Peers/requirements-v3.txt).
Usage: server_v3.py --port 0 [--ping-interval 25] [--ping-timeout 20] [--ping-grace 5] [--quiet]
                    [--watch-stdin]
Prints one line, ``READY <port>``, on stdout once it accepts connections; logs go to stderr.
CORS stays at the library default.

Namespaces ``/`` and ``/chat``. Protocol v4 has no CONNECT auth payload, so ``/chat`` checks
``token=secret`` in the query string of the Engine.IO request (python-socketio 4.x discards a
query attached to the namespace in the CONNECT packet, ``40/chat?token=secret,``).
Events: echo, ack, binary, server-ack, burst, kick, headers, later (see peer_common.py).

engineio 3.x checks heartbeats against ping-interval + a 5 s grace period; pass --ping-grace to
change it (heartbeat tests with short intervals want e.g. --ping-grace 0).
"""

import asyncio
from urllib.parse import parse_qs

# python-socketio 4.x / python-engineio 3.x pass bare coroutines to asyncio.wait(), which
# Python 3.11 rejects (every emit goes through it). Wrap them into tasks first.
_asyncio_wait = asyncio.wait


async def _wait_accepting_coroutines(fs, *args, **kwargs):
    fs = [asyncio.ensure_future(f) if asyncio.iscoroutine(f) else f for f in fs]
    return await _asyncio_wait(fs, *args, **kwargs)


asyncio.wait = _wait_accepting_coroutines

import peer_common  # noqa: E402
import socketio  # noqa: E402
from socketio.exceptions import ConnectionRefusedError  # noqa: E402


def authorize(namespace, environ, auth):
    if namespace != "/chat":
        return
    query = parse_qs(environ.get("QUERY_STRING", ""))
    if query.get("token", [None])[-1] != "secret":
        # wire: 44/chat,"unauthorized"
        raise ConnectionRefusedError("unauthorized")


def main():
    args = peer_common.parse_args(__doc__.splitlines()[0])
    peer_common.setup_logging(args)
    peer_common.patch_aiohttp_body_read()
    sio = socketio.AsyncServer(**peer_common.server_options(args))
    peer_common.install_handlers(sio, authorize)
    peer_common.run(sio, args)


if __name__ == "__main__":
    main()
