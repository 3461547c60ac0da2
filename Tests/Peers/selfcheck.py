#!/usr/bin/env python3
"""Checks the python test peers by hand (not part of scripts/test).

    python3 Tests/Peers/selfcheck.py            # both: .venv (5.x) and .venv-v3 (4.6.1)
    .venv/bin/python Tests/Peers/selfcheck.py   # only the peer matching the installed socketio

Starts server_v5.py (or server_v3.py) on a free port, probes it with raw HTTP (handshake,
version refusal, a POST body delivered in several TCP chunks), then drives it with
python-socketio's own AsyncClient from the same venv over polling and over WebSocket:
welcome-before-CONNECT, echo (+ack), ack, binary, /chat auth ok and refused, burst 1000 in
order, server-ack (reply and timeout), later, headers, kick. Exits non-zero on any failure.
"""

import argparse
import asyncio
import http.client
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


# --- orchestration (any python) ------------------------------------------------------------

def run_all():
    failed = False
    for venv in (".venv", ".venv-v3"):
        python = os.path.join(ROOT, venv, "bin", "python")
        if not os.path.exists(python):
            print(f"!! {python} missing: run scripts/peers-setup first")
            failed = True
            continue
        print(f"== {venv}")
        rc = subprocess.call([python, os.path.abspath(__file__), "--one"])
        failed = failed or rc != 0
    print("ALL OK" if not failed else "SOME CHECKS FAILED")
    return 1 if failed else 0


# --- one peer (inside a venv) --------------------------------------------------------------

class Peer:
    def __init__(self, script, *args):
        self.log = tempfile.NamedTemporaryFile(prefix="peer-", suffix=".log", delete=False)
        self.proc = subprocess.Popen([sys.executable, os.path.join(HERE, script),
                                      "--port", "0", *args],
                                     stdout=subprocess.PIPE, stderr=self.log, text=True)
        line = self.proc.stdout.readline()
        if not line.startswith("READY "):
            raise RuntimeError(f"peer did not start: {line!r}; log {self.log.name}")
        self.port = int(line.split()[1])
        self.url = f"http://127.0.0.1:{self.port}"

    def stop(self):
        self.proc.terminate()
        return self.proc.wait(10)


failures = []


STARTED = time.monotonic()


def check(name, cond, detail=""):
    elapsed = time.monotonic() - STARTED
    print(f"  {'ok  ' if cond else 'FAIL'} {elapsed:6.2f}s {name}{'' if cond else ': ' + str(detail)}")
    if not cond:
        failures.append(name)


def http_request(port, method, path, body=None, chunks=1):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    if body is None:
        conn.request(method, path)
    else:
        data = body.encode()
        conn.putrequest(method, path)
        conn.putheader("Content-Type", "text/plain;charset=UTF-8")
        conn.putheader("Content-Length", str(len(data)))
        conn.endheaders()
        step = max(1, len(data) // chunks)
        for i in range(0, len(data), step):  # separate TCP writes, as a slow network would
            conn.send(data[i:i + step])
            time.sleep(0.05)
    resp = conn.getresponse()
    out = resp.status, resp.getheader("Content-Type"), resp.read().decode()
    conn.close()
    return out


def raw_checks(v5, port):
    eio = "4" if v5 else "3"
    q = f"/socket.io/?EIO={eio}&transport=polling" + ("" if v5 else "&b64=1")
    status, ctype, body = http_request(port, "GET", q)
    if v5:
        check("raw handshake 0{\"sid\"", status == 200 and body.startswith('0{"sid"'), body)
    else:
        check("raw handshake N:0{\"sid\"", status == 200 and body.split(":", 1)[1].startswith('0{"sid"'), body)
        check("raw v3 handshake carries welcome + 2:40", '18:42["welcome","hi"]2:40' in body, body)
    other = "3" if v5 else "4"
    status, _, body2 = http_request(port, "GET", f"/socket.io/?EIO={other}&transport=polling")
    check(f"raw EIO={other} refused with 400", status == 400 and "unsupported version" in body2,
          (status, body2))

    if v5:
        open_packet = body.split("\x1e")[0]
    else:
        length, rest = body.split(":", 1)
        open_packet = rest[:int(length)]
    sid = json.loads(open_packet[1:])["sid"]
    q = f"{q}&sid={sid}"
    if v5:
        http_request(port, "POST", q, "40")
        _, _, got = http_request(port, "GET", q)
        check("raw v5 welcome before CONNECT reply", got.startswith('42["welcome","hi"]\x1e40{"sid":'), got)
    big = "x" * 300_000
    packet = f'42["echo","{big}"]'
    body = packet if v5 else f"{len(packet)}:{packet}"
    status, _, text = http_request(port, "POST", q, body, chunks=6)
    check("raw 300 kB POST in 6 TCP chunks accepted", status == 200 and text == "OK", (status, text))
    _, _, got = http_request(port, "GET", q)
    check("raw 300 kB echo comes back whole", got.endswith(f'42["echo","{big}"]'), got[:80])


async def client_checks(v5, peer, transport):
    import socketio
    import engineio
    # The python client itself decodes at most 16 packets per polling payload (a python
    # limit, not a protocol one); lift it here so the burst check can run over polling.
    engineio.payload.Payload.max_decode_packets = 100_000

    sio = socketio.AsyncClient()
    queues = {}

    def q(ns, event):
        return queues.setdefault((ns, event), asyncio.Queue())

    for ns in ("/", "/chat"):
        for event in ("welcome", "echo", "binary", "burst-item", "burst-done",
                      "server-ack-result", "later"):
            def make(ns=ns, event=event):
                async def h(*args):
                    await q(ns, event).put(args)
                return h
            sio.on(event, make(), namespace=ns)

        def make_sa(ns=ns):
            async def server_ack(*args):
                if args and args[0] == "slow":
                    await asyncio.sleep(6)
                return ("reply",) + args
            return server_ack
        sio.on("server-ack", make_sa(), namespace=ns)

        def make_dc(ns=ns):
            async def on_disconnect(*args):
                await q(ns, "disconnect").put(args)
            return on_disconnect
        sio.on("disconnect", make_dc(), namespace=ns)

        def make_err(ns=ns):
            async def on_error(*args):
                await q(ns, "connect_error").put(args)
            return on_error
        sio.on("connect_error", make_err(), namespace=ns)

    async def get(ns, event, timeout=5):
        return await asyncio.wait_for(q(ns, event).get(), timeout)

    async def emit_ack(event, *args, ns="/"):
        fut = asyncio.get_running_loop().create_future()
        await sio.emit(event, args, namespace=ns, callback=lambda *a: fut.set_result(a))
        return await asyncio.wait_for(fut, 5)

    url = peer.url if v5 else peer.url + "?token=secret"
    kwargs = dict(headers={"X-Selfcheck": "yes"}, transports=[transport], namespaces=["/", "/chat"])
    if v5:
        kwargs["auth"] = {"token": "secret"}
    await sio.connect(url, **kwargs)
    await asyncio.sleep(0.3)
    # the 4.x client lists only the extra namespaces; "/" is implied by `connected`
    check("connected to / and /chat", sio.connected and "/chat" in sio.namespaces, sio.namespaces)
    check("welcome on /", await get("/", "welcome") == ("hi",))
    check("welcome on /chat", await get("/chat", "welcome") == ("hi",))

    args = ("a", 1, {"x": [1, 2, None]}, "€😀")
    acked = await emit_ack("echo", *args)
    check("echo event", await get("/", "echo") == args)
    check("echo ack", acked == args, acked)
    check("ack", await emit_ack("ack", "x", 2) == ("x", 2))
    check("ack with no args", await emit_ack("ack") == ())
    check("echo on /chat", await emit_ack("echo", "c", ns="/chat") == ("c",))
    blob = (b"\x01\x02\x03", {"b": b"\xff\x00"}, "text")
    acked = await emit_ack("binary", *blob)
    check("binary event keeps bytes", await get("/", "binary") == blob)
    check("binary ack keeps bytes", acked == blob, acked)
    await sio.emit("server-ack", ("ping", 7))
    check("server-ack round trip", await get("/", "server-ack-result") == ("reply", "ping", 7))
    await sio.emit("burst", 1000)
    items = [(await get("/", "burst-item"))[0] for _ in range(1000)]
    check("burst 1000 in order", items == list(range(1000)), items[:5])
    check("burst-done", await get("/", "burst-done") == (1000,))
    t0 = time.monotonic()
    await sio.emit("later", (200, "a", "b"))
    got = await get("/", "later")
    check("later after 200 ms", got == ("a", "b") and time.monotonic() - t0 >= 0.19, got)
    headers = (await emit_ack("headers"))[0]
    check("headers has x-selfcheck", headers.get("x-selfcheck") == "yes", headers)
    big = "y" * 300_000
    check("300 kB echo", await emit_ack("echo", big) == (big,))
    if transport == "websocket":
        await sio.emit("server-ack", ("slow",))
        got = await get("/", "server-ack-result", timeout=10)
        check("server-ack timeout", got == ({"error": "timeout"},), got)
    await sio.emit("kick", namespace="/chat")
    await get("/chat", "disconnect")
    check("kick /chat", "/chat" not in sio.namespaces, sio.namespaces)
    await sio.emit("kick")
    await get("/", "disconnect")
    await asyncio.sleep(0.3)
    check("kick /", not sio.connected)
    await sio.disconnect()

    # refused /chat
    bad = socketio.AsyncClient()
    errors = asyncio.Queue()
    bad.on("connect_error", lambda *a: errors.put_nowait(a), namespace="/chat")
    kwargs = dict(transports=[transport], namespaces=["/chat"])
    if v5:
        kwargs["auth"] = {"token": "nope"}
    try:
        # python-socketio's own client takes ~30 s to give up on a refused polling connect
        # (its read loop waits out a long-poll); the server answered at once, so don't wait.
        await asyncio.wait_for(bad.connect(peer.url, **kwargs), 3)
        await asyncio.sleep(0.5)
    except (socketio.exceptions.ConnectionError, asyncio.TimeoutError):
        pass
    err = await asyncio.wait_for(errors.get(), 5)
    want = ({"message": "unauthorized", "data": {"reason": "bad token"}},) if v5 else ("unauthorized",)
    check("/chat refused", err == want, err)
    await bad.disconnect()
    await asyncio.sleep(0.2)  # let the clients' aiohttp sessions wind down


def one():
    import socketio
    major = int(socketio.__version__.split(".")[0]) if hasattr(socketio, "__version__") else None
    if major is None:
        from importlib.metadata import version
        major = int(version("python-socketio").split(".")[0])
    v5 = major >= 5
    if not v5:  # the 4.x client needs the same Python 3.11 asyncio.wait shim as the server
        _wait = asyncio.wait

        async def wait(fs, *a, **kw):
            return await _wait([asyncio.ensure_future(f) if asyncio.iscoroutine(f) else f
                                for f in fs], *a, **kw)
        asyncio.wait = wait
    peer = Peer("server_v5.py" if v5 else "server_v3.py")
    print(f"  peer {'server_v5' if v5 else 'server_v3'} at {peer.url}, log {peer.log.name}")
    try:
        raw_checks(v5, peer.port)
        for transport in ("polling", "websocket"):
            print(f"  -- python-socketio {major}.x client, {transport}")
            asyncio.run(client_checks(v5, peer, transport))
    finally:
        rc = peer.stop()
        check("peer exits 0 on SIGTERM", rc == 0, rc)
    print(f"  {'OK' if not failures else 'FAILED: ' + ', '.join(failures)}")
    return 1 if failures else 0


if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("--one", action="store_true", help="check only the peer of this interpreter")
    a = p.parse_args()
    sys.exit(one() if a.one else run_all())
