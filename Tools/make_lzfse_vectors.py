#!/usr/bin/env python3
"""Writes LZFSE test vectors with Apple's reference encoder (the pyliblzfse binding).

Usage: ARSIM_EXTRA_REQUIREMENTS=Tools/requirements-fixtures.txt Tools/python.sh Tools/make_lzfse_vectors.py
(or any Python with pyliblzfse installed)

Writes Tests/Fixtures/lzfse/NAME.lzfse and manifest.txt (`name raw_bytes fnv1a64 blocks`): the
decoded length and FNV-1a 64-bit hash of the original bytes, and the block kinds the stream holds.
The inputs are deterministic (seeded), so rerunning gives the same files. `v1-*` vectors are the
reference encoder's `bvx2` blocks rewritten with plain `bvx1` headers (the reference encoder
writes only v2): the same payload, the frequency tables and packed fields spelled out.
"""
import os
import random
import struct
import sys

import liblzfse

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Tests", "Fixtures", "lzfse")


def fnv1a64(data: bytes) -> int:
    h = 0xCBF29CE484222325
    for b in data:
        h = ((h ^ b) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


def depth_frame(rng: random.Random, w=128, h=96) -> bytes:
    """A LiDAR-like float32 depth map: a floor ramp and a box, millimetre noise, NaN holes."""
    values = []
    for y in range(h):
        for x in range(w):
            d = 0.8 + 2.0 * (h - y) / h
            if 40 < x < 75 and 30 < y < 60:
                d = 1.1
            d = round(d + rng.gauss(0, 0.001), 4)
            if (x // 8 + y // 8) % 23 == 0:
                d = float("nan")
            values.append(d)
    return struct.pack("<%df" % len(values), *values)


def confidence_frame(rng: random.Random, w=256, h=192) -> bytes:
    out = bytearray()
    for y in range(h):
        for x in range(w):
            c = 2 if (x - 128) ** 2 + (y - 96) ** 2 < 70 ** 2 else 1
            if rng.random() < 0.03:
                c = 0
            out.append(c)
    return bytes(out)


def blocks(stream: bytes) -> list:
    kinds, p = [], 0
    while True:
        magic = stream[p : p + 4]
        kinds.append(magic[3:4].decode())
        if magic == b"bvx$":
            return kinds
        n_raw = struct.unpack_from("<I", stream, p + 4)[0]
        if magic == b"bvx-":
            p += 8 + n_raw
        elif magic == b"bvxn":
            p += 12 + struct.unpack_from("<I", stream, p + 8)[0]
        elif magic == b"bvx2":
            f = struct.unpack_from("<3Q", stream, p + 8)
            size = f[2] & 0xFFFFFFFF
            p += size + ((f[0] >> 20) & 0xFFFFF) + ((f[1] >> 40) & 0xFFFFF)
        else:
            raise SystemExit("unexpected block %r" % magic)


def v2_frequencies(data: bytes) -> list:
    """The v2 header's variable-length frequency code (value table of the format description)."""
    nbits = [2, 3, 2, 5, 2, 3, 2, 8, 2, 3, 2, 5, 2, 3, 2, 14] * 2
    value = [0, 2, 1, 4, 0, 3, 1, -1, 0, 2, 1, 5, 0, 3, 1, -1, 0, 2, 1, 6, 0, 3, 1, -1, 0, 2, 1, 7, 0, 3, 1, -1]
    acc, held, pos, freqs = 0, 0, 0, []
    for _ in range(360):
        while pos < len(data) and held + 8 <= 32:
            acc |= data[pos] << held
            held += 8
            pos += 1
        b = acc & 31
        n = nbits[b]
        v = 8 + ((acc >> 4) & 0xF) if n == 8 else 24 + ((acc >> 4) & 0x3FF) if n == 14 else value[b]
        freqs.append(v)
        acc >>= n
        held -= n
    return freqs


def to_v1(stream: bytes) -> bytes:
    out, p = bytearray(), 0
    while True:
        magic = stream[p : p + 4]
        if magic != b"bvx2":
            if magic == b"bvx$":
                return bytes(out + magic)
            raise SystemExit("to_v1 expects only bvx2 blocks")
        n_raw = struct.unpack_from("<I", stream, p + 4)[0]
        f0, f1, f2 = struct.unpack_from("<3Q", stream, p + 8)
        g = lambda v, o, n: (v >> o) & ((1 << n) - 1)
        size = g(f2, 0, 32)
        n_lit, n_litp, n_mat = g(f0, 0, 20), g(f0, 20, 20), g(f0, 40, 20)
        n_lmdp = g(f1, 40, 20)
        freqs = v2_frequencies(stream[p + 32 : p + size]) if size > 32 else [0] * 360
        header = struct.pack(
            "<4s6Ii4Hi3H360H",
            b"bvx1", n_raw, n_litp + n_lmdp, n_lit, n_mat, n_litp, n_lmdp,
            g(f0, 60, 3) - 7, *[g(f1, 10 * i, 10) for i in range(4)],
            g(f1, 60, 3) - 7, g(f2, 32, 10), g(f2, 42, 10), g(f2, 52, 10), *freqs,
        ) + b"\0\0"
        assert len(header) == 772
        out += header + stream[p + size : p + size + n_litp + n_lmdp]
        p += size + n_litp + n_lmdp


def main() -> None:
    rng = random.Random(12)
    words = "depth confidence odometry camera frame pose gravity plane anchor the a of to in".split()
    text = (
        "Stray Scanner, Record3D and ARKitScenes recordings: depth at 256x192 under a 1920x1440 image. " * 30
    ).encode()
    inputs = {
        "empty": b"",
        "tiny": b"hello",
        "text-lzvn": text,
        "random-stored": bytes(rng.getrandbits(8) for _ in range(6000)),
        "depth-128x96": depth_frame(rng),
        "words-multiblock": " ".join(rng.choice(words) for _ in range(20000)).encode(),
        "words-lzvn": " ".join(rng.choice(words) for _ in range(700)).encode()[:4000],
        "confidence-256x192": confidence_frame(rng),
        # Entropy payloads shorter than the bit stream's 8-byte initial read: all-equal confidence
        # maps and the smallest v2 block (no literal payload at all), and 1- and 5-byte literal
        # payloads (periodic bytes).
        "confidence-zeros-256x192": bytes(256 * 192),
        "confidence-twos-256x192": bytes([2]) * (256 * 192),
        "zeros-4096": bytes(4096),
        "period2-10000": b"ab" * 5000,
        "period8-8000": b"abcdefgh" * 1000,
    }
    os.makedirs(OUT, exist_ok=True)
    lines = ["# name raw_bytes fnv1a64 blocks (made by Tools/make_lzfse_vectors.py with pyliblzfse)"]
    streams = {}
    for name, raw in inputs.items():
        stream = liblzfse.compress(raw)
        assert not raw or liblzfse.decompress(stream) == raw  # the binding cannot decode an empty stream
        streams[name] = stream
    streams["v1-confidence-256x192"] = to_v1(streams["confidence-256x192"])
    inputs["v1-confidence-256x192"] = inputs["confidence-256x192"]
    for name, stream in streams.items():
        with open(os.path.join(OUT, name + ".lzfse"), "wb") as f:
            f.write(stream)
        raw = inputs[name]
        lines.append("%s %d %016x %s" % (name, len(raw), fnv1a64(raw), "".join(blocks(stream)) if not name.startswith("v1") else "1$"))
        print(name, len(raw), "->", len(stream), "".join(blocks(stream)) if not name.startswith("v1") else "1$", file=sys.stderr)
    with open(os.path.join(OUT, "manifest.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
