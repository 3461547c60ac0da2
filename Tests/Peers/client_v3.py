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

import argparse
import asyncio
import json
import logging
import os
import sys
import time
import traceback

import socketio

TIMEOUT = 30  # a hang guard: on a starved machine (the whole suite in parallel) a step can take seconds

TRANSPORTS = {
    "polling": ["polling"],
    "websocket": ["websocket"],
    "upgrade": ["polling", "websocket"],
}

# Every packet in the log (stderr; the test prints it when a scenario fails).
DEBUG = os.environ.get("CLIENT_V3_DEBUG") == "1"

EVENTS = ["echo", "binary", "server-ack-result", "room-message", "broadcast"]


class Failure(Exception):
    pass


def check(condition, detail):
    if not condition:
        raise Failure(detail)


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


async def scenario_echo(url, transport):
    peer = await connected(url, transport)
    try:
        payload = ["hello", 42, {"nested": [True, None, 1.5]}, "ünïcødé 😀"]
        await peer.emit("echo", *payload)
        args = await peer.next_event("echo")
        check(args == payload, f"echo {args!r}")
        return "echoed 4 items"
    finally:
        await peer.close()


async def scenario_acks(url, transport):
    peer = await connected(url, transport)
    try:
        reply = await peer.call("ack", "question", 7)
        check(list(reply) == ["question", 7], f"ack reply {reply!r}")
        await peer.emit("server-ack", "ask", 1)
        result = await peer.next_event("server-ack-result")
        check(result == ["answer from python", "ask", 1], f"server ack result {result!r}")
        return "both directions"
    finally:
        await peer.close()


async def scenario_binary(url, transport):
    peer = await connected(url, transport)
    try:
        blob = bytes(range(256))
        await peer.emit("binary", blob, {"inner": b"\x00\x01"})
        args = await peer.next_event("binary")
        check(args == [blob, {"inner": b"\x00\x01"}], f"binary echo {args!r}"[:200])
        reply = await peer.call("binary", b"\xff\xfe")
        check(reply == b"\xff\xfe", f"binary ack {reply!r}")
        return "attachments both ways"
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
    ("echo", scenario_echo),
    ("acks", scenario_acks),
    ("binary", scenario_binary),
    ("rooms-broadcast", scenario_rooms_broadcast),
    ("server-disconnect", scenario_server_disconnect),
]


async def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("url")
    parser.add_argument("--transport", choices=sorted(TRANSPORTS), default="websocket")
    parser.add_argument("--only", nargs="*", help="run only these scenarios")
    args = parser.parse_args()
    logging.basicConfig(stream=sys.stderr, level=logging.INFO if DEBUG else logging.WARNING,
                        format="%(asctime)s %(name)s %(levelname)s %(message)s")

    for name, scenario in SCENARIOS:
        if args.only and name not in args.only:
            continue
        started = time.monotonic()
        try:
            detail = await asyncio.wait_for(scenario(args.url, args.transport), 3 * TIMEOUT)
            result = {"scenario": name, "ok": True, "detail": str(detail)}
        except Exception as exc:  # every failure becomes a result line
            traceback.print_exc(file=sys.stderr)
            result = {"scenario": name, "ok": False, "detail": f"{type(exc).__name__}: {exc}"}
        result["transport"] = args.transport
        result["seconds"] = round(time.monotonic() - started, 3)
        print(json.dumps(result), flush=True)


if __name__ == "__main__":
    asyncio.run(main())
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)
