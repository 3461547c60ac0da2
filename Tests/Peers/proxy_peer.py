"""A forward HTTP proxy for the client's proxy tests: proxy.py (abhinavsingh/proxy.py), a proxy
written by others: plain `http` requests forwarded, `CONNECT` tunnels for `https`.

Usage: proxy_peer.py --port 0 [--watch-stdin]
Runs `python -m proxy` in a process group of its own, prints ``READY <port>`` on stdout once the
proxy accepts connections, and passes the proxy's log to stderr. With --watch-stdin it stops the
proxy (and its acceptor processes) when stdin closes, i.e. when the test process went away.
"""
import argparse
import os
import signal
import socket
import subprocess
import sys
import threading
import time


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--watch-stdin", action="store_true")
    args = parser.parse_args()
    port = args.port or free_port()
    child = subprocess.Popen(
        [sys.executable, "-m", "proxy", "--hostname", "127.0.0.1", "--port", str(port)],
        stdin=subprocess.DEVNULL, stdout=sys.stderr, stderr=sys.stderr, start_new_session=True)

    def stop(*_):
        try:
            os.killpg(child.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        os._exit(0)

    signal.signal(signal.SIGTERM, stop)
    deadline = time.monotonic() + 30
    while True:
        if child.poll() is not None:
            sys.exit(f"proxy.py exited with {child.returncode}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            if time.monotonic() > deadline:
                stop()
            time.sleep(0.05)
    print(f"READY {port}", flush=True)
    if args.watch_stdin:
        threading.Thread(target=lambda: (sys.stdin.read(), stop()), daemon=True).start()
    child.wait()
    stop()


if __name__ == "__main__":
    main()
