"""A forward HTTP proxy for the client's proxy tests: proxy.py (abhinavsingh/proxy.py), a proxy
written by others: plain `http` requests forwarded, `CONNECT` tunnels for `https`.

Usage: proxy_peer.py --port 0 [--watch-stdin]
Runs `python -m proxy` in a process group of its own, prints ``READY <port>`` on stdout once the
proxy accepts connections, and passes the proxy's log to stderr. With --watch-stdin it stops the
proxy (and its acceptor processes) when stdin closes, i.e. when the test process went away.

Nothing outlives this script: on SIGTERM or stdin's end it kills the proxy's process group and
reaps every process of it before exiting (it is their subreaper, so the acceptors come back to it
when the proxy's main process dies), and on Linux the proxy dies with this script even when this
script is killed with SIGKILL. SIGTERM is blocked in the stdin thread, so it always reaches the
main thread, whose handler runs even while it waits for the proxy.
"""
import argparse
import ctypes
import os
import signal
import socket
import subprocess
import sys
import threading
import time


def free_port():
    """A port outside the ephemeral range (the repository's scripts/free-port): one just released
    by a bind to port 0 could be handed to an outgoing connection before the proxy binds it."""
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts", "free-port")
    return int(subprocess.check_output([sys.executable, script], text=True).strip())


PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36


def prctl(option, value):
    """Linux's prctl(2); a no-op elsewhere (the script then relies on the process group alone)."""
    if sys.platform.startswith("linux"):
        ctypes.CDLL(None, use_errno=True).prctl(option, value, 0, 0, 0)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--watch-stdin", action="store_true")
    args = parser.parse_args()
    port = args.port or free_port()
    prctl(PR_SET_CHILD_SUBREAPER, 1)
    child = subprocess.Popen(
        [sys.executable, "-m", "proxy", "--hostname", "127.0.0.1", "--port", str(port)],
        stdin=subprocess.DEVNULL, stdout=sys.stderr, stderr=sys.stderr, start_new_session=True,
        preexec_fn=lambda: prctl(PR_SET_PDEATHSIG, signal.SIGKILL))

    def stop(*_):
        try:
            os.killpg(child.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        # Reap the proxy and its acceptors, so none is left when this script exits.
        while True:
            try:
                os.waitpid(-1, 0)
            except ChildProcessError:
                break
            except InterruptedError:
                continue
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
        # The thread inherits the blocked SIGTERM; only the main thread takes it.
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})
        threading.Thread(target=lambda: (sys.stdin.read(), stop()), daemon=True).start()
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM})
    child.wait()
    stop()


if __name__ == "__main__":
    main()
