#!/usr/bin/env python3
"""python-socketio's client running the same benchmark as `sio bench`, for a side-by-side table.

Usage: bench_client.py URL --events N --acks M [--transport websocket|polling]
Prints one JSON object: echo events/s and ack round-trip latencies (ms, sorted).
"""

import argparse
import asyncio
import json
import time

import socketio

PAYLOAD = {"symbol": "SWB", "price": 101.25, "qty": 3, "note": "benchmark payload"}


async def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("url")
    parser.add_argument("--events", type=int, default=10000)
    parser.add_argument("--acks", type=int, default=2000)
    parser.add_argument("--transport", default="websocket")
    args = parser.parse_args()

    client = socketio.AsyncClient(reconnection=False)
    received = 0
    done = asyncio.Event()

    @client.on("echo")
    async def on_echo(*_):
        nonlocal received
        received += 1
        if received >= args.events:
            done.set()

    await client.connect(args.url, transports=[args.transport], wait_timeout=10)
    start = time.perf_counter()
    for i in range(args.events):
        await client.emit("echo", (i, PAYLOAD))
    await asyncio.wait_for(done.wait(), timeout=300)
    seconds = time.perf_counter() - start

    latencies = []
    for i in range(args.acks):
        sent = time.perf_counter()
        await client.call("ack", (i, PAYLOAD), timeout=10)
        latencies.append((time.perf_counter() - sent) * 1000)
    await client.disconnect()
    latencies.sort()
    print(json.dumps({"events": args.events, "seconds": seconds, "latencies_ms": latencies}))


if __name__ == "__main__":
    asyncio.run(main())
