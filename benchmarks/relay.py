#!/usr/bin/env python3
"""A delay relay for the benchmark run: a stand-in for a real link on loopback.

Listens on 127.0.0.1 (kernel-chosen port unless --port), forwards every connection to a loopback
target, and holds each chunk --delay-ms (15) in each direction before passing it on (a 30 ms round
trip). Chunks are pipelined: a chunk read while an earlier one is held waits only its own delay, so
the relay adds latency, not a bandwidth cap. Prints `relay listening on 127.0.0.1:PORT` once ready.

Each direction of a connection has a reader thread, which stamps a chunk when it arrives, and a
writer thread, which sends it when its time comes. The wait is a sleep shortened by this machine's
measured sleep overshoot (taken at start), and a new connection's first bytes are read, their delay
running, while the relay is still connecting to the target. So a round trip through it is 30 ms plus
about half a millisecond: printed beside the benchmark rows that use it.

Bounded: refuses non-loopback targets, serves at most --max-connections at once, and exits after
--lifetime seconds (600) whatever happens. The benchmark run also stops it at exit.

Usage: relay.py --target-port N [--target-host 127.0.0.1] [--port 0] [--delay-ms 15] [--lifetime 600]
"""
import argparse, collections, ipaddress, os, socket, sys, threading, time


def sleep_overshoot(delay, samples=40):
    """The median time a sleep of `delay` lasts beyond it on this machine (about 0.2 ms on a VM's timer);
    each hold is shortened by it, so a chunk is held --delay-ms on average, not that plus the overshoot."""
    late = []
    for _ in range(samples):
        start = time.monotonic()
        time.sleep(delay)
        late.append(time.monotonic() - start - delay)
    late.sort()
    return max(0.0, late[len(late) // 2])


class Direction:
    """One direction of a connection: a reader thread stamps each chunk as it arrives, a writer thread
    sends it once its delay is over, in order. End of stream travels the same way, as an empty chunk."""

    def __init__(self, source, delay, early, connected, sink_holder, done):
        self.source, self.delay, self.early = source, delay, early
        self.connected, self.sink_holder, self.done = connected, sink_holder, done
        self.queue = collections.deque()
        self.ready = threading.Condition()

    def start(self):
        for target in (self.read, self.write):
            threading.Thread(target=target, daemon=True).start()

    def read(self):
        while True:
            try:
                chunk = self.source.recv(65536)
            except OSError:
                chunk = b""
            with self.ready:
                self.queue.append((time.monotonic() + self.delay, chunk))
                self.ready.notify()
            if not chunk:
                return

    def write(self):
        self.connected.wait()
        sink = self.sink_holder()
        try:
            while sink is not None:
                with self.ready:
                    while not self.queue:
                        self.ready.wait()
                    due, chunk = self.queue.popleft()
                wait = due - time.monotonic() - self.early
                if wait > 0:
                    time.sleep(wait)
                if not chunk:
                    try:
                        sink.shutdown(socket.SHUT_WR)
                    except OSError:
                        pass  # the peer is gone already
                    break
                sink.sendall(chunk)
        except OSError:
            pass
        finally:
            self.done()


def serve(client, args, delay, early, slots):
    server_sock = [None]
    connected = threading.Event()
    remaining = [2]
    lock = threading.Lock()

    def done():
        with lock:
            remaining[0] -= 1
            last = remaining[0] == 0
        if last:
            for s in (client, server_sock[0]):
                if s is not None:
                    try:
                        s.shutdown(socket.SHUT_RDWR)  # wakes a reader still blocked on it
                    except OSError:
                        pass
                    s.close()
            slots.release()

    # Client → target starts reading at once; its writer waits for the target connection.
    Direction(client, delay, early, connected, lambda: server_sock[0], done).start()
    try:
        server_sock[0] = socket.create_connection((args.target_host, args.target_port))
        server_sock[0].setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    except OSError:
        server_sock[0] = None
        connected.set()  # the client's writer finds no target and ends
        done()  # the direction that never started
        return
    connected.set()
    Direction(server_sock[0], delay, early, connected, lambda: client, done).start()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--target-host", default="127.0.0.1")
    ap.add_argument("--target-port", type=int, required=True)
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--delay-ms", type=float, default=15.0)
    ap.add_argument("--lifetime", type=float, default=600.0)
    ap.add_argument("--max-connections", type=int, default=64)
    args = ap.parse_args()
    if not ipaddress.ip_address(args.target_host).is_loopback:
        sys.exit("relay: target must be a loopback address")
    delay = args.delay_ms / 1000.0
    early = sleep_overshoot(delay)
    slots = threading.BoundedSemaphore(args.max_connections)
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", args.port))
    listener.listen(128)
    port = listener.getsockname()[1]
    print("relay listening on 127.0.0.1:%d (delay %.0f ms each way, target %s:%d; sleeps overshoot %.2f ms here)" % (
        port, args.delay_ms, args.target_host, args.target_port, early * 1000), flush=True)

    def lifetime():
        time.sleep(args.lifetime)
        print("relay: lifetime over", file=sys.stderr, flush=True)
        os._exit(0)  # open connections end with the process

    threading.Thread(target=lifetime, daemon=True).start()
    while True:
        client, _ = listener.accept()
        if not slots.acquire(blocking=False):
            client.close()
            continue
        client.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        threading.Thread(target=serve, args=(client, args, delay, early, slots), daemon=True).start()


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        pass
