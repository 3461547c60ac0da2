"""python-socketio 4.x's client (Engine.IO v3, Socket.IO protocol v4) against a Socket.IO server.

Usage: client_v3.py URL [--transport polling|websocket|upgrade] [--only SCENARIO ...]

The counterpart of client_v5.py for servers that serve EIO3 clients (Switchboard's with
`allowEIO3`, socket.io's with `allowEIO3: true`): an independent, older client implementation.
Prints one JSON line per scenario on stdout ({"scenario": ..., "ok": ..., "detail": ...}); logs
go to stderr; the exit status is 0 when the script ran.

The server must behave like Switchboard's demo server (the README's "The demo server's contract"):
`/` is joined by the server at once (protocol v4); `/chat` wants the token `secret`, which a v4
client sends in the namespace's query (`/chat?token=secret`).
"""

import asyncio
import json
import logging
import os

import socketio

import client_common
from client_common import TRANSPORTS, check

TIMEOUT = 30  # a hang guard: on a starved machine (the whole suite in parallel) a step can take seconds


# Every packet in the log (stderr; the test prints it when a scenario fails).
DEBUG = os.environ.get("CLIENT_V3_DEBUG") == "1"
LOG_LEVEL = logging.INFO if DEBUG else logging.WARNING

EVENTS = ["echo", "binary", "server-ack-result", "room-message", "broadcast"]




class Peer:
    """One AsyncClient joined to one namespace, recording the events it receives."""

    def __init__(self, url, transport, namespace="/", query=""):
        self.url = url
        self.transport = transport
        self.namespace = namespace
        # Protocol v4: the namespace's query carries the auth.
        self.connect_namespace = namespace + (f"?{query}" if query else "")
        # python-engineio 3.x gives up on a request after 5 s and aborts the connection; a server
        # starved that long (the whole test suite in parallel on two cores) is not a failure.
        self.sio = socketio.AsyncClient(reconnection=False, request_timeout=TIMEOUT,
                                        logger=DEBUG, engineio_logger=DEBUG)
        self.events = asyncio.Queue()
        self.connected = asyncio.Event()
        self.connect_errors = []
        self.disconnected = asyncio.Event()
        for name in EVENTS:
            self.sio.on(name, self._recorder(name), namespace=namespace)
        self.sio.on("connect", self._connect, namespace=namespace)
        self.sio.on("connect_error", self._connect_error, namespace=namespace)
        self.sio.on("disconnect", self._disconnect, namespace=namespace)
        self.sio.on("server-ack", self._server_ack, namespace=namespace)

    def _recorder(self, name):
        async def record(*args):
            await self.events.put((name, list(args)))
        return record

    async def _connect(self):
        self.connected.set()

    async def _connect_error(self, *data):
        self.connect_errors.append(list(data))
        self.connected.set()

    async def _disconnect(self):
        self.disconnected.set()

    async def _server_ack(self, *args):
        return ("answer from python",) + args

    async def connect(self):
        namespaces = [self.connect_namespace] if self.namespace != "/" else None
        await self.sio.connect(self.url, transports=TRANSPORTS[self.transport], namespaces=namespaces)
        await asyncio.wait_for(self.connected.wait(), TIMEOUT)

    async def emit(self, event, *args):
        await self.sio.emit(event, args, namespace=self.namespace)

    async def call(self, event, *args):
        return await self.sio.call(event, args, namespace=self.namespace, timeout=TIMEOUT)

    async def next_event(self, name):
        while True:
            event, args = await asyncio.wait_for(self.events.get(), TIMEOUT)
            if event == name:
                return args

    async def close(self):
        try:
            await self.sio.disconnect()
        except Exception:  # already gone
            pass


async def connected(url, transport, namespace="/", query=""):
    peer = Peer(url, transport, namespace, query)
    await peer.connect()
    check(not peer.connect_errors, f"connect_error {peer.connect_errors!r}")
    return peer


async def scenario_connect(url, transport):
    peer = await connected(url, transport)
    try:
        expected = "polling" if transport == "polling" else "websocket"
        if transport == "upgrade":
            for _ in range(50):
                if peer.sio.transport() == "websocket":
                    break
                await asyncio.sleep(0.05)
        check(peer.sio.transport() == expected, f"transport {peer.sio.transport()!r}, expected {expected!r}")
        return f"sid {peer.sio.sid} over {peer.sio.transport()}"
    finally:
        await peer.close()


async def scenario_auth_accepted(url, transport):
    peer = await connected(url, transport, "/chat", "token=secret")
    try:
        reply = await peer.call("ack", "inside")
        check(reply == "inside", f"ack reply {reply!r}")
        return "joined /chat with the token in the namespace's query"
    finally:
        await peer.close()


async def scenario_auth_rejected(url, transport):
    peer = Peer(url, transport, "/chat", "token=nope")
    try:
        await peer.connect()
        check(peer.connect_errors, "no connect_error event")
        error = peer.connect_errors[0]
        check(error == [{"reason": "bad token"}], f"connect_error {error!r}")
        return json.dumps(error)
    finally:
        await peer.close()


async def scenario_rooms_broadcast(url, transport):
    peers = [await connected(url, transport) for _ in range(3)]
    alice, bob, carol = peers
    try:
        for peer in (alice, bob):
            joined = await peer.call("join", "room-v3")
            check(joined == "room-v3", f"join reply {joined!r}")
        count = await carol.call("room-message", "room-v3", "hi room")
        check(count == 2, f"room-message reached {count!r}, expected 2")
        for peer in (alice, bob):
            args = await peer.next_event("room-message")
            check(args == ["room-v3", "hi room"], f"room message {args!r}")
        count = await alice.call("broadcast", "to all but me")
        check(count >= 2, f"broadcast reached {count!r}, expected at least 2")
        for peer in (bob, carol):
            args = await peer.next_event("broadcast")
            check(args == ["to all but me"], f"broadcast {args!r}")
        return "room of 2 of 3, broadcast"
    finally:
        for peer in peers:
            await peer.close()


async def scenario_server_disconnect(url, transport):
    peer = await connected(url, transport)
    try:
        await peer.emit("kick")
        await asyncio.wait_for(peer.disconnected.wait(), TIMEOUT)
        return "disconnected by the server"
    finally:
        await peer.close()


SCENARIOS = [
    ("connect", scenario_connect),
    ("auth-accepted", scenario_auth_accepted),
    ("auth-rejected", scenario_auth_rejected),
    ("echo", lambda url, transport: client_common.scenario_echo(connected, url, transport)),
    ("acks", lambda url, transport: client_common.scenario_acks(connected, url, transport)),
    ("binary", lambda url, transport: client_common.scenario_binary(connected, url, transport)),
    ("rooms-broadcast", scenario_rooms_broadcast),
    ("server-disconnect", scenario_server_disconnect),
]


if __name__ == "__main__":
    client_common.run(__doc__.splitlines()[0], SCENARIOS, TIMEOUT, LOG_LEVEL)
