#!/usr/bin/env python3
"""Plane detection benchmark: ARSim against Open3D's RANSAC plane fit, on the same points, in one run.

usage: ARSIM_EXTRA_REQUIREMENTS=Tools/requirements-bench.txt Tools/python.sh Tools/bench_planes.py \\
           RECORDING [--arsim PATH] [--every N] [--iterations 200,1000] [--planes 4]

For an ARSim recording (RGB-D or monocular) it
  1. runs `arsim bench RECORDING --dump-points DIR --every N --json ...`: the replay with plane detection
     (horizontal and vertical) gives ARSim's plane time per frame (depth sampling, sequential RANSAC,
     region split, anchor association, growth and merging: everything `ARSession` times as plane
     detection) and, for every N-th frame on which detection ran, the exact world points the detector
     received (tracked feature points and sampled depth points, metres);
  2. for each dumped point set, runs Open3D's `PointCloud.segment_plane(distance_threshold=0.02,
     ransac_n=3, num_iterations=I)` sequentially to extract up to `--planes` planes (fit, remove the
     inliers, repeat; stops early only when fewer than 3 points remain), on one thread
     (OMP_NUM_THREADS=1), with Open3D's random generator seeded, timing only the `segment_plane` calls,
     for each I of `--iterations` (default 200 and Open3D's default 1000);
  3. prints per-frame medians of both on the same frames (and ARSim's median over every frame on which
     detection ran), and the speed ratio.
Open3D gets the points already in a PointCloud and does no anchor bookkeeping; ARSim's time includes
both. The machine and its load are printed with the figures; quote medians and ratios, not single
timings."""
import json
import os
import platform
import subprocess
import sys
import tempfile
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402
import open3d as o3d  # noqa: E402


def option(args, name, default):
    if name in args:
        i = args.index(name)
        value = args[i + 1]
        del args[i:i + 2]
        return value
    return default


def open3d_planes(points, iterations, planes, threshold=0.02):
    """Seconds spent in segment_plane extracting up to `planes` planes from `points` (N x 3), and the
    inlier count of each plane found."""
    cloud = o3d.geometry.PointCloud(o3d.utility.Vector3dVector(points.astype(np.float64)))
    seconds = 0.0
    inliers_found = []
    for _ in range(planes):
        if len(cloud.points) < 3:
            break
        start = time.perf_counter()
        _, inliers = cloud.segment_plane(distance_threshold=threshold, ransac_n=3, num_iterations=iterations)
        seconds += time.perf_counter() - start
        inliers_found.append(len(inliers))
        cloud = cloud.select_by_index(inliers, invert=True)
    return seconds, inliers_found


def main():
    args = sys.argv[1:]
    arsim = option(args, "--arsim", os.path.join(os.path.dirname(__file__), "..", ".build", "release", "arsim"))
    every = int(option(args, "--every", "10"))
    iteration_counts = [int(x) for x in option(args, "--iterations", "200,1000").split(",")]
    planes = int(option(args, "--planes", "4"))
    if len(args) != 1 or args[0].startswith("--"):
        sys.exit(__doc__)
    folder = args[0]
    session = json.load(open(os.path.join(folder, "session.json")))
    camera = session["camera"]
    load_before = os.getloadavg()[0]
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, load {load_before:.1f}; "
          f"open3d {o3d.__version__}; OMP_NUM_THREADS={os.environ['OMP_NUM_THREADS']}")

    with tempfile.TemporaryDirectory() as tmp:
        # 1. ARSim, dumping the detector's points.
        report = os.path.join(tmp, "bench.json")
        dump = os.path.join(tmp, "points")
        done = subprocess.run(
            [arsim, "bench", folder, "--dump-points", dump, "--every", str(every), "--json", report],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if done.returncode != 0:
            sys.exit(done.stderr.strip() or f"{arsim} failed with status {done.returncode}")
        ours = json.load(open(report))[0]
        index = json.load(open(os.path.join(dump, "index.json")))
        if not index:
            sys.exit(f"{folder}: plane detection ran on no frame whose index is a multiple of {every}")
        clouds = [np.load(os.path.join(dump, entry["file"])) for entry in index]

    # 2. Open3D on the same points.
    o3d.utility.random.seed(1)
    theirs = {}
    for iterations in iteration_counts:
        per_frame = []
        counts = []
        for points in clouds:
            seconds, found = open3d_planes(points, iterations, planes)
            per_frame.append(seconds)
            counts.append(found)
        theirs[iterations] = (per_frame, counts)
    load_after = os.getloadavg()[0]

    # 3. Figures.
    same_frames_ms = float(np.median([entry["planeMilliseconds"] for entry in index]))
    all_frames_ms = ours["planeDetectionMilliseconds"]
    sizes = [len(c) for c in clouds]
    features = [entry["featurePoints"] for entry in index]
    print(f"recording: {folder} ({ours['frames']} frames, {camera['width']}x{camera['height']}, {ours['mode']})")
    print(f"points: {len(clouds)} frames dumped (index a multiple of {every}, detection ran); per frame median {np.median(sizes):.0f} "
          f"points ({np.median(features):.0f} feature points, the rest depth), range {min(sizes)}-{max(sizes)}")
    print(f"ARSim:  plane detection and anchor update {same_frames_ms:.2f} ms/frame (median over the dumped frames; "
          f"{all_frames_ms:.2f} over all {ours['planeFrames']} frames with detection)")
    for iterations in iteration_counts:
        per_frame, counts = theirs[iterations]
        their_ms = float(np.median(per_frame) * 1000)
        planes_found = float(np.mean([len(c) for c in counts]))
        inliers = float(np.median([sum(c) for c in counts]))
        print(f"Open3D: segment_plane x{planes} ({iterations} iterations, 0.02 m) {their_ms:.2f} ms/frame "
              f"(median; {planes_found:.1f} planes/frame, median {inliers:.0f} inliers/frame)")
        print(f"  speed ratio (Open3D {iterations} it. / ARSim): {their_ms / same_frames_ms:.2f}x")
    print(f"load: {load_before:.1f} before, {load_after:.1f} after")


if __name__ == "__main__":
    main()
