"""Shared parts of the python-socketio test peers (server_v5.py, server_v3.py).

Runs under python-socketio 5.x (python-engineio 4.x) and under python-socketio 4.6.1
(python-engineio 3.14.2): only APIs present in both are used.

Protocol for the process that starts a peer (Tests/SocketIOTests/Support/PythonPeer.swift):
  * stdout carries exactly one line, ``READY <port>``, once the server accepts connections;
  * everything else (logs) goes to stderr;
  * SIGTERM / SIGINT, or EOF on stdin when ``--watch-stdin`` is given, shut the server down
    (clients are disconnected at the Engine.IO level) and the process exits with status 0.
"""

import argparse
import asyncio
import importlib
import inspect
import logging
import os
import signal
import socket
import sys
import threading

from aiohttp import web

log = logging.getLogger("peer")

NAMESPACES = ("/", "/chat")


def parse_args(description):
    p = argparse.ArgumentParser(description=description)
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=0,
                   help="0 picks a free port; the chosen one is printed as 'READY <port>'")
    p.add_argument("--ping-interval", type=float, default=25.0, help="seconds (floats allowed)")
    p.add_argument("--ping-timeout", type=float, default=20.0, help="seconds (floats allowed)")
    p.add_argument("--ping-grace", type=float, default=None,
                   help="seconds added to ping-interval before the server declares a client "
                        "gone (library default: 0 in engineio 4.x, 5 in engineio 3.x)")
    p.add_argument("--max-http-buffer-size", type=int, default=None,
                   help="largest accepted message/POST body in bytes (library default if unset)")
    p.add_argument("--certfile", default=None, help="serve HTTPS/WSS with this PEM certificate")
    p.add_argument("--keyfile", default=None, help="the certificate's PEM private key")
    p.add_argument("--quiet", action="store_true", help="no per-packet logging")
    p.add_argument("--watch-stdin", action="store_true",
                   help="exit when stdin reaches EOF (the parent went away)")
    return p.parse_args()


def setup_logging(args):
    logging.basicConfig(stream=sys.stderr,
                        level=logging.WARNING if args.quiet else logging.INFO,
                        format="%(asctime)s.%(msecs)03d %(name)s %(levelname)s %(message)s",
                        datefmt="%H:%M:%S")


def server_options(args):
    """Keyword arguments for socketio.AsyncServer. CORS stays at the library default."""
    ping_interval = args.ping_interval
    if args.ping_grace is not None:
        ping_interval = (args.ping_interval, args.ping_grace)
    opts = dict(async_mode="aiohttp",
                # One client's events are handled in the order they arrive, as socket.io's Node
                # server does; by default both python lines run each handler as its own task,
                # which may answer a later event first (seen under the thread sanitizer's timing).
                # Handlers that wait (later, server-ack) do so in background tasks.
                async_handlers=False,
                ping_interval=ping_interval,
                ping_timeout=args.ping_timeout,
                # Logger objects (not True): the libraries then add no handler of their own,
                # so every line goes once through the stderr handler set up above.
                logger=False if args.quiet else logging.getLogger("socketio.server"),
                engineio_logger=False if args.quiet else logging.getLogger("engineio.server"))
    if args.max_http_buffer_size is not None:
        opts["max_http_buffer_size"] = args.max_http_buffer_size
    return opts


# --- POST body read fix ------------------------------------------------------------------
# Both engineio lines do `await environ['wsgi.input'].read(content_length)` on aiohttp's
# StreamReader, which returns whatever is buffered (one TCP chunk), so a large polling POST is
# cut short. Wrap the stream so read(n) returns exactly n bytes (or everything up to EOF).

class _ExactReader:
    def __init__(self, stream):
        self._stream = stream

    async def read(self, n=-1):
        if n is None or n < 0:
            return await self._stream.read()
        chunks = []
        remaining = n
        while remaining > 0:
            chunk = await self._stream.read(remaining)
            if not chunk:
                break
            chunks.append(chunk)
            remaining -= len(chunk)
        return b"".join(chunks)

    def __getattr__(self, name):
        return getattr(self._stream, name)


def patch_aiohttp_body_read():
    driver = importlib.import_module("engineio.async_drivers.aiohttp")
    original = driver._async["translate_request"]
    if getattr(original, "_peer_patched", False):
        return

    if inspect.iscoroutinefunction(original):
        async def translate_request(*a, **kw):
            environ = await original(*a, **kw)
            environ["wsgi.input"] = _ExactReader(environ["wsgi.input"])
            return environ
    else:
        def translate_request(*a, **kw):
            environ = original(*a, **kw)
            environ["wsgi.input"] = _ExactReader(environ["wsgi.input"])
            return environ
    translate_request._peer_patched = True
    driver._async["translate_request"] = translate_request


# --- behaviour -----------------------------------------------------------------------------

def request_headers(environ):
    """HTTP headers of the request that opened the connection, lower-case names."""
    request = environ.get("aiohttp.request")
    if request is not None:
        headers = {}
        for name, value in request.headers.items():
            key = name.lower()
            headers[key] = f"{headers[key]}, {value}" if key in headers else value
        return headers
    headers = {}
    for key, value in environ.items():
        if key.startswith("HTTP_"):
            headers[key[5:].replace("_", "-").lower()] = value
        elif key in ("CONTENT_TYPE", "CONTENT_LENGTH"):
            headers[key.replace("_", "-").lower()] = value
    return headers


def install_handlers(sio, authorize):
    """Registers the test behaviour on every namespace in NAMESPACES.

    The events are those of the demo server's contract (the README's table, implemented by
    Sources/SwitchboardDemo) that the client tests use, with the same replies and acks, but two
    differences the client tests rely on: python greets every connection with ``welcome`` (sent
    before the CONNECT reply), and ``kick`` disconnects before it could ack (a pending ack must
    then fail, typed).

    authorize(namespace, environ, auth) raises socketio.exceptions.ConnectionRefusedError to
    refuse a connection.
    """
    headers_by_sid = {}

    def register(ns):
        async def connect(sid, environ, auth=None):
            log.info("connect ns=%s sid=%s auth=%r", ns, sid, auth)
            authorize(ns, environ, auth)
            headers_by_sid[(ns, sid)] = request_headers(environ)
            # python sends this before the CONNECT reply: tests rely on it.
            await sio.emit("welcome", "hi", to=sid, namespace=ns)

        async def disconnect(sid, *reason):
            log.info("disconnect ns=%s sid=%s %r", ns, sid, reason)
            headers_by_sid.pop((ns, sid), None)

        async def echo(sid, *args):
            await sio.emit("echo", tuple(args), to=sid, namespace=ns)
            return tuple(args)  # sent only when the client asked for an ack

        async def ack(sid, *args):
            return tuple(args)

        async def binary(sid, *args):
            await sio.emit("binary", tuple(args), to=sid, namespace=ns)
            return tuple(args)

        async def server_ack(sid, *args):
            # Acks at once (the demo contract); the question and its report run in the background.
            # Like sio.call(), but keeps the reply's argument list exactly (call() collapses a
            # one-argument reply to the value and a null reply to "no arguments").
            async def ask():
                loop = asyncio.get_running_loop()
                reply = loop.create_future()

                def on_reply(*reply_args):
                    if not reply.done():
                        reply.set_result(reply_args)

                await sio.emit("server-ack", tuple(args), to=sid, namespace=ns, callback=on_reply)
                try:
                    reply_args = await asyncio.wait_for(reply, timeout=5)
                except asyncio.TimeoutError:
                    await sio.emit("server-ack-result", {"error": "timeout"}, to=sid, namespace=ns)
                    return
                await sio.emit("server-ack-result", tuple(reply_args), to=sid, namespace=ns)
            sio.start_background_task(ask)
            return ()

        async def burst(sid, n=0, *rest):
            n = int(n)
            for i in range(n):
                await sio.emit("burst-item", i, to=sid, namespace=ns)
            await sio.emit("burst-done", n, to=sid, namespace=ns)
            return n

        async def kick(sid, *args):
            await sio.disconnect(sid, namespace=ns)

        async def headers(sid, *args):
            return headers_by_sid.get((ns, sid), {})

        async def later(sid, ms=0, *rest):
            async def fire():
                await sio.sleep(float(ms) / 1000.0)
                await sio.emit("later", tuple(rest), to=sid, namespace=ns)
            sio.start_background_task(fire)

        for event, handler in (("connect", connect), ("disconnect", disconnect),
                               ("echo", echo), ("ack", ack), ("binary", binary),
                               ("server-ack", server_ack), ("burst", burst), ("kick", kick),
                               ("headers", headers), ("later", later)):
            sio.on(event, handler, namespace=ns)

    for ns in NAMESPACES:
        register(ns)


# --- serving -------------------------------------------------------------------------------

def _listening_socket(host, port):
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(128)
    sock.setblocking(False)
    return sock


async def _serve(sio, args):
    app = web.Application()
    sio.attach(app)

    shutdown_timeout = 1.0
    runner_kwargs = {"handle_signals": False}
    site_kwargs = {}
    # aiohttp >= 3.9 takes shutdown_timeout on the runner, older versions on the site.
    if "shutdown_timeout" in inspect.signature(web.BaseRunner.__init__).parameters:
        runner_kwargs["shutdown_timeout"] = shutdown_timeout
    else:
        site_kwargs["shutdown_timeout"] = shutdown_timeout
    runner = web.AppRunner(app, **runner_kwargs)
    await runner.setup()
    sock = _listening_socket(args.host, args.port)
    if args.certfile:
        import ssl
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(args.certfile, args.keyfile)
        site_kwargs["ssl_context"] = context
    site = web.SockSite(runner, sock, **site_kwargs)
    await site.start()
    port = sock.getsockname()[1]

    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    # A parent that spawns from a thread with signals blocked (Foundation's Process called from a
    # Dispatch/Swift-concurrency worker thread) passes its mask on: unblock, or SIGTERM never lands.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT})
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    if args.watch_stdin:
        def watch():
            try:
                while sys.stdin.buffer.read(4096):
                    pass
            except Exception:
                pass
            loop.call_soon_threadsafe(stop.set)
        threading.Thread(target=watch, name="stdin-watch", daemon=True).start()

    log.info("listening on http://%s:%d", args.host, port)
    sys.stdout.write(f"READY {port}\n")
    sys.stdout.flush()

    await stop.wait()
    log.info("shutting down")
    # Close every Engine.IO session without waiting for queued packets to be fetched (a polling
    # client that stopped polling would otherwise hold the shutdown up). Clients see a `1`
    # (close) packet where the transport still carries one.
    async def close_all():
        for eio_socket in list(sio.eio.sockets.values()):
            try:
                await eio_socket.close(wait=False)
            except Exception as exc:
                log.info("closing %s: %r", getattr(eio_socket, "sid", "?"), exc)
    try:
        await asyncio.wait_for(close_all(), timeout=2)
    except Exception as exc:  # still exit cleanly
        log.warning("disconnecting clients: %r", exc)
    try:
        await asyncio.wait_for(runner.cleanup(), timeout=3)
    except Exception as exc:
        log.warning("stopping the web server: %r", exc)
    log.info("stopped")


def run(sio, args):
    try:
        asyncio.run(_serve(sio, args))
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
    # Background tasks (ping loops, pending long-polls) must not keep the process alive.
    os._exit(0)
