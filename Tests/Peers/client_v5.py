"""python-socketio 5.x's client against a Socket.IO server: the interop scenarios.

Usage: client_v5.py URL [--transport polling|websocket|upgrade] [--only SCENARIO ...]

Runs every scenario against the server at URL (an independent client implementation checking
Switchboard's server) and prints one JSON line per scenario on stdout:

    {"scenario": "echo", "ok": true, "detail": "..."}

The server must behave like Switchboard's demo server (Sources/SwitchboardDemo, the table "The
demo server's contract" in the README): namespaces `/` and `/chat` (auth token `secret`,
refused with {"message": "unauthorized", "data": {"reason": "bad token"}}), and the events echo,
ack, binary, server-ack, join, leave, room-message, broadcast and kick. Logs go to stderr. The exit status is 0
when the script ran (whatever the results), so the caller reads the lines.
"""

import asyncio
import json
import logging

import socketio

import client_common
from client_common import TRANSPORTS, Failure, check

TIMEOUT = 10
LOG_LEVEL = logging.WARNING
CHAT_AUTH = {"token": "secret"}





class Peer:
    """One AsyncClient on one namespace, recording the events it receives."""

    def __init__(self, url, transport, namespace="/", auth=None):
        self.url = url
        self.transport = transport
        self.namespace = namespace
        self.auth = auth
        self.sio = socketio.AsyncClient(reconnection=False)
        self.events = asyncio.Queue()
        self.connect_errors = []
        self.disconnects = []
        self.disconnected = asyncio.Event()
        self.sio.on("*", self._any, namespace=namespace)
        self.sio.on("connect_error", self._connect_error, namespace=namespace)
        self.sio.on("disconnect", self._disconnect, namespace=namespace)
        self.sio.on("server-ack", self._server_ack, namespace=namespace)

    async def _any(self, event, *args):
        await self.events.put((event, list(args)))

    async def _connect_error(self, data=None):
        self.connect_errors.append(data)

    async def _disconnect(self, reason=None):
        self.disconnects.append(reason)
        self.disconnected.set()

    async def _server_ack(self, *args):
        # The client's answer to the server's emitWithAck (a tuple: several ack items).
        return ("answer from python",) + args

    async def connect(self):
        await self.sio.connect(self.url, transports=TRANSPORTS[self.transport],
                               namespaces=[self.namespace], auth=self.auth,
                               wait_timeout=TIMEOUT)

    async def emit(self, event, *args):
        await self.sio.emit(event, args, namespace=self.namespace)

    async def call(self, event, *args):
        return await self.sio.call(event, args, namespace=self.namespace, timeout=TIMEOUT)

    async def next_event(self, name):
        """The next event called `name` (others received meanwhile are skipped)."""
        while True:
            event, args = await asyncio.wait_for(self.events.get(), TIMEOUT)
            if event == name:
                return args

    async def nothing_named(self, name, within=0.3):
        """Whether no event called `name` arrives within `within` seconds."""
        try:
            while True:
                event, _ = await asyncio.wait_for(self.events.get(), within)
                if event == name:
                    return False
        except asyncio.TimeoutError:
            return True

    async def close(self):
        try:
            await self.sio.disconnect()
        except Exception:  # already gone
            pass


async def connected(url, transport, namespace="/", auth=None):
    peer = Peer(url, transport, namespace, auth)
    await peer.connect()
    return peer


# --- scenarios ---------------------------------------------------------------------------

async def scenario_connect(url, transport):
    peer = await connected(url, transport)
    try:
        check(peer.sio.connected and peer.sio.get_sid("/"), "no socket id after connect")
        expected = "polling" if transport == "polling" else "websocket"
        if transport == "upgrade":
            # The upgrade runs during connect; give it a moment to settle.
            for _ in range(50):
                if peer.sio.transport() == "websocket":
                    break
                await asyncio.sleep(0.05)
        check(peer.sio.transport() == expected,
              f"transport {peer.sio.transport()!r}, expected {expected!r}")
        return f"sid {peer.sio.get_sid('/')} over {peer.sio.transport()}"
    finally:
        await peer.close()


async def scenario_auth_accepted(url, transport):
    peer = await connected(url, transport, "/chat", CHAT_AUTH)
    try:
        reply = await peer.call("ack", "inside")
        check(reply == "inside", f"ack reply {reply!r}")
        return "connected to /chat"
    finally:
        await peer.close()


async def scenario_auth_rejected(url, transport):
    peer = Peer(url, transport, "/chat", {"token": "nope"})
    try:
        await peer.connect()
    except socketio.exceptions.ConnectionError:
        pass
    else:
        await peer.close()
        raise Failure("the connection was accepted")
    await peer.close()
    check(peer.connect_errors, "no connect_error event")
    error = peer.connect_errors[0]
    expected = {"message": "unauthorized", "data": {"reason": "bad token"}}
    check(error == expected, f"connect_error {error!r}, expected {expected!r}")
    return json.dumps(error)


async def scenario_rooms_broadcast(url, transport):
    peers = [await connected(url, transport, "/chat", CHAT_AUTH) for _ in range(3)]
    alice, bob, carol = peers
    try:
        for peer in (alice, bob):
            joined = await peer.call("join", "room1")
            check(joined == "room1", f"join reply {joined!r}")
        count = await carol.call("room-message", "room1", "hi room")
        check(count == 2, f"room-message reached {count!r}, expected 2")
        for peer in (alice, bob):
            args = await peer.next_event("room-message")
            check(args == ["room1", "hi room"], f"room message {args!r}")
        check(await carol.nothing_named("room-message"), "carol, outside the room, got the room message")

        count = await alice.call("broadcast", "to all but me")
        # At least bob and carol: the scenarios share one server, and over polling a /chat
        # socket of an earlier scenario (auth) may not have been closed yet; who receives it is
        # checked below.
        check(count >= 2, f"broadcast reached {count!r}, expected at least 2")
        for peer in (bob, carol):
            args = await peer.next_event("broadcast")
            check(args == ["to all but me"], f"broadcast {args!r}")
        check(await alice.nothing_named("broadcast"), "the sender got its own broadcast")
        return "room of 2 of 3, broadcast to 2 of 3"
    finally:
        for peer in peers:
            await peer.close()


async def scenario_server_disconnect(url, transport):
    peer = await connected(url, transport)
    try:
        await peer.emit("kick")
        await asyncio.wait_for(peer.disconnected.wait(), TIMEOUT)
        reason = peer.disconnects[0]
        # python-socketio names socket.io's "io server disconnect" this way.
        expected = peer.sio.reason.SERVER_DISCONNECT
        check(reason == expected, f"disconnect reason {reason!r}, expected {expected!r}")
        return reason
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
