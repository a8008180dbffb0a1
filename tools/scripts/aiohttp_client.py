#!/usr/bin/python3
"""Closed-loop transcription load generator, written the way the published
asyncio benchmark clients are (one aiohttp.ClientSession, C worker tasks
taking the next request from a shared counter, aiohttp.FormData per request,
time.perf_counter around each request).

loadcmp runs it with Debian's /usr/bin/python3 (python3-aiohttp) and reads
one JSON object from stdout: requests, succeeded, window_s (first measured
start to last measured end) and latency_s of the successful measured
requests.

    /usr/bin/python3 tools/scripts/aiohttp_client.py --url http://127.0.0.1:8000 \
        --clip clip.wav --c 16 --n 2000
"""

import argparse
import asyncio
import json
import resource
import sys
import time

import aiohttp


async def send(session, url, audio):
    form = aiohttp.FormData()
    form.add_field("model", "null")
    form.add_field("file", audio, filename="audio.wav", content_type="audio/wav")
    start = time.perf_counter()
    async with session.post(url, data=form) as resp:
        body = await resp.json(content_type=None)
        ok = resp.status == 200 and bool(body.get("text"))
        status = resp.status
    end = time.perf_counter()
    return start, end, ok, status


async def phase(session, url, audio, c, n):
    results = []
    counter = iter(range(n))

    async def worker():
        for _ in counter:
            try:
                results.append(await send(session, url, audio))
            except Exception as e:  # recorded, not fatal: a benchmark keeps going
                now = time.perf_counter()
                results.append((now, now, False, repr(e)))

    await asyncio.gather(*(worker() for _ in range(c)))
    return results


async def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--url", required=True)
    ap.add_argument("--clip", required=True)
    ap.add_argument("--c", type=int, required=True)
    ap.add_argument("--n", type=int, required=True)
    ap.add_argument("--warmup", type=int, default=-1, help="default: C")
    a = ap.parse_args()
    with open(a.clip, "rb") as f:
        audio = f.read()
    url = a.url.rstrip("/") + "/v1/audio/transcriptions"
    connector = aiohttp.TCPConnector(limit=a.c)
    timeout = aiohttp.ClientTimeout(total=60)
    async with aiohttp.ClientSession(connector=connector, timeout=timeout) as session:
        ru0 = resource.getrusage(resource.RUSAGE_SELF)
        await phase(session, url, audio, a.c, a.c if a.warmup < 0 else a.warmup)
        res = await phase(session, url, audio, a.c, a.n)
        ru1 = resource.getrusage(resource.RUSAGE_SELF)
    ok = [r for r in res if r[2]]
    out = {
        "requests": len(res),
        "succeeded": len(ok),
        "window_s": max(r[1] for r in res) - min(r[0] for r in res),
        "latency_s": [r[1] - r[0] for r in ok],
        "intervals": [[r[0], r[1]] for r in res],
        "errors": [str(r[3]) for r in res if not r[2]][:5],
        "send_cpu_s": (ru1.ru_utime + ru1.ru_stime) - (ru0.ru_utime + ru0.ru_stime),
    }
    json.dump(out, sys.stdout)
    sys.stdout.write("\n")


if __name__ == "__main__":
    asyncio.run(main())
