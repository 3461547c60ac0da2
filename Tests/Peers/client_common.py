"""Shared parts of the python-socketio client peers (client_v5.py, client_v3.py): the scenarios
both library lines run the same way, and the driver that runs a list of scenarios and prints one
JSON line per scenario on stdout.

A scenario is `async def scenario(connected, url, transport)`, where `connected(url, transport)`
returns the script's own peer (with emit, call, next_event and close) joined to `/`.
"""

import argparse
import asyncio
import json
import logging
import os
import sys
import time
import traceback

TRANSPORTS = {
    "polling": ["polling"],
    "websocket": ["websocket"],
    "upgrade": ["polling", "websocket"],
}


class Failure(Exception):
    pass


def check(condition, detail):
    if not condition:
        raise Failure(detail)


async def scenario_echo(connected, url, transport):
    peer = await connected(url, transport)
    try:
        payload = ["hello", 42, {"nested": [True, None, 1.5]}, "ünïcødé 😀"]
        await peer.emit("echo", *payload)
        args = await peer.next_event("echo")
        check(args == payload, f"echo {args!r}")
        return "echoed 4 items"
    finally:
        await peer.close()


async def scenario_acks(connected, url, transport):
    peer = await connected(url, transport)
    try:
        # Client -> server ack (python returns a tuple for several items).
        reply = await peer.call("ack", "question", 7)
        check(list(reply) == ["question", 7], f"ack reply {reply!r}")
        # Server -> client ack: the server asks, our handler answers, the server reports.
        await peer.emit("server-ack", "ask", 1)
        result = await peer.next_event("server-ack-result")
        check(result == ["answer from python", "ask", 1], f"server ack result {result!r}")
        return "both directions"
    finally:
        await peer.close()


async def scenario_binary(connected, url, transport):
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


def run(description, scenarios, timeout, log_level=logging.WARNING):
    """Parses `URL [--transport T] [--only S ...]`, runs `scenarios` ([(name, coroutine function
    of (url, transport))]) and prints a result line for each; then exits at once (python-engineio's
    polling read loop can outlive a server-side disconnect, its GET held until the server's next
    ping; the results are printed, so nothing waits for it)."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("url")
    parser.add_argument("--transport", choices=sorted(TRANSPORTS), default="websocket")
    parser.add_argument("--only", nargs="*", help="run only these scenarios")
    args = parser.parse_args()
    logging.basicConfig(stream=sys.stderr, level=log_level,
                        format="%(asctime)s %(name)s %(levelname)s %(message)s")

    async def main():
        for name, scenario in scenarios:
            if args.only and name not in args.only:
                continue
            started = time.monotonic()
            try:
                detail = await asyncio.wait_for(scenario(args.url, args.transport), 3 * timeout)
                result = {"scenario": name, "ok": True, "detail": str(detail)}
            except Exception as exc:  # every failure becomes a result line
                traceback.print_exc(file=sys.stderr)
                result = {"scenario": name, "ok": False, "detail": f"{type(exc).__name__}: {exc}"}
            result["transport"] = args.transport
            result["seconds"] = round(time.monotonic() - started, 3)
            print(json.dumps(result), flush=True)

    asyncio.run(main())
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)
