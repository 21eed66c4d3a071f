#!/usr/bin/env python3
"""Writes tiny Record3D exports for the reader's tests into Tests/Fixtures/record3d/:

- tiny.r3d: a zip with `metadata` and 3 frames (rgbd/{i}.jpg 32x24, rgbd/{i}.depth LZFSE float32
  16x12 with NaN holes, rgbd/{i}.conf LZFSE uint8), poses camera-to-world in OpenGL axes;
(the tests build the EXR+JPG folder from it with ARSim's own EXR writer: this OpenCV wheel has none).
- bad-depth.r3d: the same with rgbd/1.depth's LZFSE block header damaged (the zip itself is sound).
- old-2022.r3d: tiny.r3d's frames under the metadata of the app's 2022 versions: no dw/dh, no
  frameTimestamps, poses relative to the first camera (pose 0 the identity) and initPose the
  first camera in the world.
- metadata-bomb.r3d: tiny.r3d with its metadata padded with 4 MiB of spaces (valid JSON, deflated
  to a few kilobytes): more than a metadata member of 10 members may declare.
- depth-bomb.r3d: tiny.r3d with rgbd/1.depth replaced by 4 MiB of zeros (deflated), far more than
  a 16x12 float32 depth map's LZFSE stream.
Depth values are k * 0.001 m so tests can check them exactly.

Usage: ARSIM_EXTRA_REQUIREMENTS=Tools/requirements-fixtures.txt Tools/python.sh Tools/make_record3d_fixture.py
With --derived-only, only the fixtures made from the committed tiny.r3d are (re)written (then
neither OpenCV nor numpy is needed).
"""
import json
import os
import sys
import zipfile

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Tests", "Fixtures", "record3d")
W, H, DW, DH = 32, 24, 16, 12


def frame(i):
    y, x = np.mgrid[0:H, 0:W]
    rgb = np.stack([(x * 8 + i * 20) % 256, (y * 10) % 256, np.full_like(x, 128)], -1).astype(np.uint8)
    dy, dx = np.mgrid[0:DH, 0:DW]
    depth = ((1000 + 10 * dx + 5 * dy + i).astype(np.float32) * np.float32(0.001)).astype(np.float32)
    depth[0, 0] = np.nan
    conf = ((dx + dy + i) % 3).astype(np.uint8)
    return rgb, depth, conf


def derived():
    """The fixtures made from tiny.r3d (its members unchanged unless said)."""
    with zipfile.ZipFile(os.path.join(OUT, "tiny.r3d")) as good:
        members = {name: good.read(name) for name in good.namelist()}
    meta = json.loads(members["metadata"])
    # 2022 metadata: world from camera i = initPose * pose i, pose 0 the identity. initPose: yaw 30
    # degrees about y, then a 10-degree tilt about x (unit quaternion), at (0.5, 1.4, -0.3).
    old = {key: meta[key] for key in ("w", "h", "fps", "K")}
    old["poses"] = [[0, 0, 0, 1, 0.1 * i, 0, 0] for i in range(3)]
    old["initPose"] = [0.08418598, 0.25783416, -0.02255757, 0.96225019, 0.5, 1.4, -0.3]
    archives = {
        "old-2022.r3d": dict(members, metadata=json.dumps(old).encode()),
        "metadata-bomb.r3d": dict(members, metadata=members["metadata"][:-1] + b" " * (4 << 20) + b"}"),
        "depth-bomb.r3d": {name: (bytes(4 << 20) if name == "rgbd/1.depth" else data) for name, data in members.items()},
    }
    for archive, contents in archives.items():
        with zipfile.ZipFile(os.path.join(OUT, archive), "w", zipfile.ZIP_DEFLATED) as z:
            for name, data in contents.items():
                z.writestr(zipfile.ZipInfo(name, (2024, 1, 1, 0, 0, 0)), data, zipfile.ZIP_DEFLATED)


if "--derived-only" in sys.argv:
    derived()
    sys.exit(0)

import cv2  # noqa: E402
import liblzfse  # noqa: E402
import numpy as np  # noqa: E402

metadata = {
    "w": W, "h": H, "dw": DW, "dh": DH, "fps": 60,
    "K": [30.0, 0, 0, 0, 30.0, 0, 15.5, 11.5, 1],
    "poses": [[0, 0, 0, 1, 0.1 * i, 1.5, 0.2] for i in range(3)],
    "frameTimestamps": [0.0, 1 / 60, 2 / 60],
    "initPose": [0, 0, 0, 1, 0, 0, 0],
}
os.makedirs(OUT, exist_ok=True)
with zipfile.ZipFile(os.path.join(OUT, "tiny.r3d"), "w", zipfile.ZIP_DEFLATED) as z:
    z.writestr("metadata", json.dumps(metadata))
    for i in range(3):
        rgb, depth, conf = frame(i)
        jpg = cv2.imencode(".jpg", cv2.cvtColor(rgb, cv2.COLOR_RGB2BGR), [cv2.IMWRITE_JPEG_QUALITY, 95])[1].tobytes()
        z.writestr("rgbd/%d.jpg" % i, jpg)
        z.writestr("rgbd/%d.depth" % i, liblzfse.compress(depth.astype("<f4").tobytes()))
        z.writestr("rgbd/%d.conf" % i, liblzfse.compress(conf.tobytes()))

with zipfile.ZipFile(os.path.join(OUT, "tiny.r3d")) as good, zipfile.ZipFile(
    os.path.join(OUT, "bad-depth.r3d"), "w", zipfile.ZIP_DEFLATED
) as bad:
    for name in good.namelist():
        data = bytearray(good.read(name))
        if name == "rgbd/1.depth":
            data[5] ^= 0x01  # the block's raw size: 256 bytes more than its payload decodes to
        bad.writestr(name, bytes(data))

derived()
