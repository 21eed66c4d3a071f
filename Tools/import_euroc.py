#!/usr/bin/env python3
"""Imports an EuRoC MAV sequence (cam0 + imu0 + TUM-format ground truth) as an ARSim recording:
images undistorted with the radial-tangential model of cam0/sensor.yaml (same intrinsics kept),
IMU rotated from the body frame into cam0's optical frame, ground truth T_WC = T_WB * T_BS.

usage: Tools/python.sh Tools/import_euroc.py MAV0_DIR GROUND_TRUTH_TUM OUT_DIR [--frames N]"""
import json
import os
import sys

import cv2
import numpy as np


def read_yaml_matrix(text, key):
    start = text.index(key)
    data = text[text.index("data:", start) + 5:]
    data = data[data.index("[") + 1:data.index("]")]
    return np.array([float(v) for v in data.replace("\n", " ").split(",")])


def read_list(text, key):
    line = next(l for l in text.splitlines() if l.strip().startswith(key))
    return [float(v) for v in line[line.index("[") + 1:line.index("]")].split(",")]


def quat_to_matrix(q):  # (x, y, z, w)
    x, y, z, w = q
    return np.array([
        [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
        [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
        [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]])


def matrix_to_quat(r):
    w = np.sqrt(max(0.0, 1 + r[0, 0] + r[1, 1] + r[2, 2])) / 2
    x = np.sqrt(max(0.0, 1 + r[0, 0] - r[1, 1] - r[2, 2])) / 2
    y = np.sqrt(max(0.0, 1 - r[0, 0] + r[1, 1] - r[2, 2])) / 2
    z = np.sqrt(max(0.0, 1 - r[0, 0] - r[1, 1] + r[2, 2])) / 2
    x = np.copysign(x, r[2, 1] - r[1, 2])
    y = np.copysign(y, r[0, 2] - r[2, 0])
    z = np.copysign(z, r[1, 0] - r[0, 1])
    q = np.array([x, y, z, w])
    return q / np.linalg.norm(q)


def main():
    args = sys.argv[1:]
    limit = None
    if "--frames" in args:
        i = args.index("--frames")
        limit = int(args[i + 1])
        del args[i:i + 2]
    if len(args) != 3:
        sys.exit(__doc__)
    mav0, gt_path, out = args
    sensor = open(os.path.join(mav0, "cam0", "sensor.yaml")).read()
    t_bs = read_yaml_matrix(sensor, "T_BS").reshape(4, 4)
    fx, fy, cx, cy = read_list(sensor, "intrinsics:")
    width, height = [int(v) for v in read_list(sensor, "resolution:")]
    distortion = np.array(read_list(sensor, "distortion_coefficients:"))
    k = np.array([[fx, 0, cx], [0, fy, cy], [0, 0, 1]])
    map1, map2 = cv2.initUndistortRectifyMap(k, distortion, None, k, (width, height), cv2.CV_32FC1)

    names = sorted(n for n in os.listdir(os.path.join(mav0, "cam0", "data")) if n.endswith(".png"))
    if limit:
        names = names[:limit]
    times = [int(n[:-4]) * 1e-9 for n in names]
    gt = {}
    for line in open(gt_path):
        if line.startswith("#") or not line.strip():
            continue
        v = [float(x) for x in line.split()]
        gt[round(v[0], 3)] = v[1:]

    os.makedirs(os.path.join(out, "rgb"), exist_ok=True)
    r_cb = t_bs[:3, :3].T  # body -> camera rotation
    with open(os.path.join(out, "frames.txt"), "w") as frames, \
            open(os.path.join(out, "groundtruth.txt"), "w") as truth:
        frames.write("# timestamp image depth\n")
        truth.write("# timestamp tx ty tz qx qy qz qw (cam0 optical frame to world)\n")
        for name, t in zip(names, times):
            image = cv2.imread(os.path.join(mav0, "cam0", "data", name), cv2.IMREAD_GRAYSCALE)
            rectified = cv2.remap(image, map1, map2, cv2.INTER_LINEAR)
            cv2.imwrite(os.path.join(out, "rgb", name), rectified)
            frames.write(f"{t:.6f} rgb/{name} -\n")
            pose = gt.get(round(t, 3))
            if pose is None:
                sys.exit(f"{gt_path}: no ground-truth pose at {t:.6f}")
            t_wb = np.eye(4)
            t_wb[:3, :3] = quat_to_matrix(pose[3:7])
            t_wb[:3, 3] = pose[0:3]
            t_wc = t_wb @ t_bs
            q = matrix_to_quat(t_wc[:3, :3])
            p = t_wc[:3, 3]
            truth.write(f"{t:.6f} {p[0]:.9f} {p[1]:.9f} {p[2]:.9f} {q[0]:.9f} {q[1]:.9f} {q[2]:.9f} {q[3]:.9f}\n")
    with open(os.path.join(out, "imu.txt"), "w") as imu:
        imu.write("# timestamp ax ay az gx gy gz (cam0 optical frame)\n")
        for line in open(os.path.join(mav0, "imu0", "data.csv")):
            if line.startswith("#"):
                continue
            v = [float(x) for x in line.split(",")]
            t = v[0] * 1e-9
            if t < times[0] - 0.5 or t > times[-1]:
                continue
            gyro = r_cb @ np.array(v[1:4])
            acc = r_cb @ np.array(v[4:7])
            imu.write(f"{t:.6f} {acc[0]:.6f} {acc[1]:.6f} {acc[2]:.6f} {gyro[0]:.6f} {gyro[1]:.6f} {gyro[2]:.6f}\n")
    session = {
        "format": "arsim-recording", "version": 1,
        "camera": {"fx": fx, "fy": fy, "cx": cx, "cy": cy, "width": width, "height": height},
        "depthScale": 0.001, "frameRate": 20,
        "sensors": {"color": True, "depth": False, "accelerometer": True, "gyroscope": True},
        "frames": "frames.txt", "imu": "imu.txt",
        "groundTruth": {"trajectory": "groundtruth.txt", "gravity": [0, 0, -1]},
    }
    with open(os.path.join(out, "session.json"), "w") as f:
        json.dump(session, f, indent=2)
    print(f"imported {len(names)} frames into {out}", file=sys.stderr)


if __name__ == "__main__":
    main()
