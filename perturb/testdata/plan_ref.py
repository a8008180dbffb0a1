#!/usr/bin/env python3
"""Reference implementation of perturb.Plan.Index, written from the package
documentation alone, to show that a verifier in another language re-derives
the same sample indices.

Reads lines "seed clip_hex samples n" on stdin, prints one index per line.
"""
import hashlib
import sys


def index(seed, clip, samples, n):
    key = hashlib.sha256(b"benchseal.plan/v1" + seed.to_bytes(8, "big") + clip).digest()
    k = max((samples - 1).bit_length(), 2)
    lo, hi = k - k // 2, k // 2

    def f(i, v):
        d = hashlib.sha256(key + bytes([i]) + v.to_bytes(8, "big")).digest()
        return int.from_bytes(d[:8], "big")

    def perm(x):
        left, right = x >> lo, x & ((1 << lo) - 1)
        for i in range(8):
            if i % 2 == 0:
                right ^= f(i, left) & ((1 << lo) - 1)
            else:
                left ^= f(i, right) & ((1 << hi) - 1)
        return left << lo | right

    assert 0 <= n < samples
    x = perm(n)
    while x >= samples:
        x = perm(x)
    return x


for line in sys.stdin:
    seed, clip, samples, n = line.split()
    print(index(int(seed), bytes.fromhex(clip), int(samples), int(n)))
