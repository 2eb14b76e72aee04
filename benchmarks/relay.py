#!/usr/bin/env python3
"""A delay relay for the benchmark run: a stand-in for a real link on loopback.

Listens on 127.0.0.1 (kernel-chosen port unless --port), forwards every connection to a loopback
target, and holds each chunk --delay-ms (15) in each direction before passing it on (a 30 ms round
trip). Chunks are pipelined: a chunk read while an earlier one is held waits only its own delay, so
the relay adds latency, not a bandwidth cap. Prints `relay listening on 127.0.0.1:PORT` once ready.

Bounded: refuses non-loopback targets, serves at most --max-connections at once, and exits after
--lifetime seconds (600) whatever happens. The benchmark run also stops it at exit.

Usage: relay.py --target-port N [--target-host 127.0.0.1] [--port 0] [--delay-ms 15] [--lifetime 600]
"""
import argparse, asyncio, ipaddress, sys


async def pump(reader, writer, delay):
    """Copies reader → writer, each chunk delivered `delay` seconds after it was read, in order."""
    queue = asyncio.Queue()
    loop = asyncio.get_running_loop()

    async def deliver():
        while True:
            due, chunk = await queue.get()
            if chunk is None:
                break
            wait = due - loop.time()
            if wait > 0:
                await asyncio.sleep(wait)
            writer.write(chunk)
            await writer.drain()
        try:
            if writer.can_write_eof():
                writer.write_eof()
        except OSError:
            pass  # the peer is gone already

    sender = asyncio.ensure_future(deliver())
    try:
        while True:
            chunk = await reader.read(65536)
            await queue.put((loop.time() + delay, chunk or None))
            if not chunk:
                break
        await sender
    except (OSError, asyncio.CancelledError):
        sender.cancel()
        raise


async def main():
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
    slots = asyncio.Semaphore(args.max_connections)

    async def handle(client_r, client_w):
        if slots.locked():
            client_w.close()
            return
        async with slots:
            try:
                server_r, server_w = await asyncio.open_connection(args.target_host, args.target_port)
            except OSError:
                client_w.close()
                return
            try:
                await asyncio.gather(pump(client_r, server_w, delay), pump(server_r, client_w, delay))
            except (OSError, asyncio.CancelledError):
                pass
            finally:
                for w in (client_w, server_w):
                    w.close()

    server = await asyncio.start_server(handle, "127.0.0.1", args.port)
    port = server.sockets[0].getsockname()[1]
    print("relay listening on 127.0.0.1:%d (delay %.0f ms each way, target %s:%d)" % (
        port, args.delay_ms, args.target_host, args.target_port), flush=True)
    await asyncio.sleep(args.lifetime)
    server.close()  # open connections are cancelled when asyncio.run returns
    print("relay: lifetime over", file=sys.stderr, flush=True)


if __name__ == "__main__":
    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        pass
