#!/usr/bin/env python3
"""Writes tiny OpenEXR depth files with OpenEXR's own Python binding (PyPI `OpenEXR`) into
Tests/Fixtures/exr/, for the depth decoder's tests (Tests/ARSimTests/Vision/ExrDecodeTests.swift):
an encoder other than ARSim's, in the shapes depth EXRs come in.

- r3d-R-half-8x6.exr: one HALF channel named R (ZIP), as Record3D's EXR+JPG export writes depth;
  values 0.5 + x/8 + y/4 m (exact in half floats), 0 at (0, 0).
- Z-float-8x6.exr: one FLOAT channel named Z (no compression), 1 + 0.01 i.
- depth-half-piz-8x6.exr: one HALF channel named depth (PIZ), the R values.
- RGBZ-8x6.exr: HALF R, G, B (the R values times 1, 2, 3) and a FLOAT Z (the Z values), ZIP.
- RG-half-8x6.exr: HALF R and G: no channel says it is depth.
- A-uint-8x6.exr: one UINT channel named A (values i): integers, not depth.

Usage: python -m venv /tmp/venv && /tmp/venv/bin/pip install OpenEXR numpy &&
/tmp/venv/bin/python Tools/make_exr_fixtures.py
"""
import os

import numpy as np
import OpenEXR

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Tests", "Fixtures", "exr")
W, H = 8, 6

y, x = np.mgrid[0:H, 0:W]
r = (0.5 + x / 8 + y / 4).astype(np.float32)
r[0, 0] = 0
z = (1 + 0.01 * np.arange(W * H, dtype=np.float32)).reshape(H, W).astype(np.float32)
half = lambda a: a.astype(np.float16)

files = {
    "r3d-R-half-8x6.exr": ({"R": half(r)}, OpenEXR.ZIP_COMPRESSION),
    "Z-float-8x6.exr": ({"Z": z}, OpenEXR.NO_COMPRESSION),
    "depth-half-piz-8x6.exr": ({"depth": half(r)}, OpenEXR.PIZ_COMPRESSION),
    "RGBZ-8x6.exr": ({"R": half(r), "G": half(2 * r), "B": half(3 * r), "Z": z}, OpenEXR.ZIP_COMPRESSION),
    "RG-half-8x6.exr": ({"R": half(r), "G": half(2 * r)}, OpenEXR.ZIP_COMPRESSION),
    "A-uint-8x6.exr": ({"A": np.arange(W * H, dtype=np.uint32).reshape(H, W)}, OpenEXR.NO_COMPRESSION),
}
for name, (channels, compression) in files.items():
    header = {"compression": compression, "type": OpenEXR.scanlineimage}
    with OpenEXR.File(header, channels) as f:
        f.write(os.path.join(OUT, name))
    print(name, os.path.getsize(os.path.join(OUT, name)))
