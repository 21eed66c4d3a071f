#!/usr/bin/env python3
"""Imports a KITTI odometry sequence (grey images, calib.txt, times.txt, poses) as a TUM-layout
folder that `arsim replay --mode mono` reads: rgb.txt (absolute image paths, nothing is copied),
intrinsics.txt (fx fy cx cy from P0) and groundtruth.txt (camera optical frame to world, TUM).

usage: Tools/import_kitti.py SEQUENCE_DIR POSES_FILE OUT_DIR
  SEQUENCE_DIR holds image_0/, calib.txt and times.txt; POSES_FILE has one pose per frame:
  12 numbers (3x4 row-major camera-to-world), optionally preceded by a timestamp.
Standard library only."""
import math
import os
import sys


def quaternion(r):
    """(qx, qy, qz, qw) of a 3x3 rotation given as rows (Shepperd's method)."""
    trace = r[0][0] + r[1][1] + r[2][2]
    if trace > 0:
        s = math.sqrt(trace + 1.0) * 2
        return ((r[2][1] - r[1][2]) / s, (r[0][2] - r[2][0]) / s, (r[1][0] - r[0][1]) / s, 0.25 * s)
    if r[0][0] > r[1][1] and r[0][0] > r[2][2]:
        s = math.sqrt(1.0 + r[0][0] - r[1][1] - r[2][2]) * 2
        return (0.25 * s, (r[0][1] + r[1][0]) / s, (r[0][2] + r[2][0]) / s, (r[2][1] - r[1][2]) / s)
    if r[1][1] > r[2][2]:
        s = math.sqrt(1.0 + r[1][1] - r[0][0] - r[2][2]) * 2
        return ((r[0][1] + r[1][0]) / s, 0.25 * s, (r[1][2] + r[2][1]) / s, (r[0][2] - r[2][0]) / s)
    s = math.sqrt(1.0 + r[2][2] - r[0][0] - r[1][1]) * 2
    return ((r[0][2] + r[2][0]) / s, (r[1][2] + r[2][1]) / s, 0.25 * s, (r[1][0] - r[0][1]) / s)


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    sequence, poses_file, out = sys.argv[1:]
    sequence = os.path.abspath(sequence)
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(sequence, "calib.txt")) as f:
        p0 = next(line for line in f if line.startswith("P0:")).split()[1:]
    fx, cx, fy, cy = float(p0[0]), float(p0[2]), float(p0[5]), float(p0[6])
    with open(os.path.join(sequence, "times.txt")) as f:
        times = [float(line) for line in f if line.strip()]
    images = sorted(os.listdir(os.path.join(sequence, "image_0")))
    with open(poses_file) as f:
        poses = [[float(v) for v in line.split()] for line in f if line.strip()]
    count = min(len(times), len(images), len(poses))
    with open(os.path.join(out, "intrinsics.txt"), "w") as f:
        f.write(f"{fx} {fy} {cx} {cy}\n")
    with open(os.path.join(out, "rgb.txt"), "w") as rgb, open(os.path.join(out, "groundtruth.txt"), "w") as gt:
        rgb.write("# timestamp filename (KITTI image_0)\n")
        gt.write("# timestamp tx ty tz qx qy qz qw (optical frame to world)\n")
        for i in range(count):
            t = times[i]
            rgb.write(f"{t:.6f} {os.path.join(sequence, 'image_0', images[i])}\n")
            values = poses[i][-12:]
            rows = [values[0:4], values[4:8], values[8:12]]
            q = quaternion([row[:3] for row in rows])
            gt.write(f"{t:.6f} {rows[0][3]:.9f} {rows[1][3]:.9f} {rows[2][3]:.9f} "
                     f"{q[0]:.9f} {q[1]:.9f} {q[2]:.9f} {q[3]:.9f}\n")
    print(f"imported {count} frames into {out}", file=sys.stderr)


if __name__ == "__main__":
    main()
