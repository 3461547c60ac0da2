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


def fix_fractional_ping_interval():
    """python-engineio 4.x advertises int(ping_interval + grace) * 1000: it truncates to whole
    seconds, so --ping-interval 0.5 is announced as "pingInterval":0 while the server really
    pings every 500 ms. Announce what the server does. Integer intervals are unaffected."""
    from engineio import async_socket
    from engineio import packet as eio_packet

    original_send = async_socket.AsyncSocket.send

    async def send(self, pkt, *args, **kwargs):
        if pkt.packet_type == eio_packet.OPEN and isinstance(pkt.data, dict):
            server = self.server
            actual = int(round((server.ping_interval + server.ping_interval_grace_period) * 1000))
            if pkt.data.get("pingInterval") != actual:
                peer_common.log.info("advertising pingInterval %d instead of the library's %r",
                                     actual, pkt.data.get("pingInterval"))
                pkt.data["pingInterval"] = actual
        return await original_send(self, pkt, *args, **kwargs)

    async_socket.AsyncSocket.send = send


def main():
    args = peer_common.parse_args(__doc__.splitlines()[0])
    peer_common.setup_logging(args)
    peer_common.patch_aiohttp_body_read()
    fix_fractional_ping_interval()
    sio = socketio.AsyncServer(**peer_common.server_options(args))
    peer_common.install_handlers(sio, authorize)
    peer_common.run(sio, args)


if __name__ == "__main__":
    main()
