#!/usr/bin/env python3
"""A peer figure for issue 12: Open3D's frame-to-model dense depth tracking on a Stray Scanner folder.

usage: ARSIM_EXTRA_REQUIREMENTS=Tools/requirements-bench.txt Tools/python.sh Tools/stray_frame_to_model.py FOLDER
       [--voxel M ...] [--confidence C] [--depth-max Z] [--trunc T] [--every N]

Each depth map (confidence >= C, default 2; colour K scaled to the depth size as ARSim does) is tracked
by `o3d.t.pipelines.slam.Model.track_frame_to_model` (point-to-plane ICP against the TSDF's raycast at
the last pose) and then fused into the TSDF: voxel size M metres (default 3/512, Open3D's dense SLAM
default, and 0.01), depth up to Z m (default 5), truncation T voxels (default 8). That is Open3D's dense
SLAM loop without colour, started at ARKit's first pose. Prints the ATE against ARKit's poses (RMSE;
SE(3), then Sim(3) with its scale), the alignment of `stray_depth_agreement.py` section 5 and of
`arsim eval`. Reads the folder, writes nothing.

On ../shared/datasets/stray-demo2 (Open3D 0.20, CPU; ARSim's frame-to-keyframe `--mode depth` is 7.43 cm):
voxels 3/512 m, truncation 8: 32.19 cm (29.45 cm Sim(3), scale 0.921); 0.02 m, truncation 8: 32.25 cm
(29.17 cm, 0.917); 0.01 m, truncation 4: 61.66 cm; 0.02 m with confidence >= 1: 81.06 cm (63.70 cm, 0.737).
No frame failed; colourless frame-to-model tracking without the gyroscope does not reach 2 cm on this data."""
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from stray_depth_agreement import Session, ate  # noqa: E402


def track(s, voxel, confidence, every, depth_max, trunc):
    import open3d as o3d
    core, slam = o3d.core, o3d.t.pipelines.slam
    o3d.utility.set_verbosity_level(o3d.utility.VerbosityLevel.Error)
    device = core.Device("CPU:0")
    k = core.Tensor(s.k(), core.float64)
    start = s.pose(s.t[0])
    model = slam.Model(voxel, 16, 40000, core.Tensor(start), device)
    frame = slam.Frame(s.h, s.w, k, device)
    raycast = slam.Frame(s.h, s.w, k, device)
    blank = o3d.t.geometry.Image(core.Tensor(np.zeros((s.h, s.w, 3), np.uint8)))
    pose = start.copy()
    times, positions = [], []
    failures = 0
    for n, i in enumerate(range(0, len(s.t), every)):
        d = s.depth(i, confidence)
        d[~np.isfinite(d)] = 0
        frame.set_data_from_image("depth", o3d.t.geometry.Image(core.Tensor((d * 1000).astype(np.uint16))))
        frame.set_data_from_image("color", blank)
        if n > 0:
            try:
                result = model.track_frame_to_model(frame, raycast, 1000.0, depth_max, 0.07)
                pose = pose @ result.transformation.numpy()
            except RuntimeError:  # a singular system: the pose is held
                failures += 1
        model.update_frame_pose(n, core.Tensor(pose))
        model.integrate(frame, 1000.0, depth_max, trunc)
        model.synthesize_model_frame(raycast, 1000.0, 0.1, depth_max, trunc, False)
        times.append(s.t[i])
        positions.append(pose[:3, 3].copy())
    return np.array(times), np.array(positions), failures


def main(argv):
    args = argv[1:]
    if not args or args[0].startswith("--"):
        sys.exit(__doc__.split("\n\n")[1])
    folder, voxels, confidence, every, depth_max, trunc = args[0], [], 2, 1, 5.0, 8.0
    i = 1
    while i < len(args):
        if args[i] == "--voxel":
            voxels.append(float(args[i + 1]))
        elif args[i] == "--confidence":
            confidence = int(args[i + 1])
        elif args[i] == "--depth-max":
            depth_max = float(args[i + 1])
        elif args[i] == "--trunc":
            trunc = float(args[i + 1])
        elif args[i] == "--every":
            every = int(args[i + 1])
        else:
            sys.exit(__doc__.split("\n\n")[1])
        i += 2
    s = Session(folder)
    print(f"{folder}: {len(s.t)} frames, depth {s.w}x{s.h}, confidence >= {confidence}, depth <= {depth_max} m, "
          f"truncation {trunc} voxels, every {every} frame(s)")
    for voxel in voxels or [3 / 512, 0.01]:
        clock = time.process_time()
        times, positions, failures = track(s, voxel, confidence, every, depth_max, trunc)
        e = ate(s, times, positions)
        print(f"  Open3D frame-to-model (TSDF {voxel * 100:.1f} cm voxels): ATE {e[0] * 100:.2f} cm SE(3), "
              f"{e[2] * 100:.2f} cm Sim(3) at scale {e[3]:.4f} ({failures} failed, "
              f"{(time.process_time() - clock) / len(times) * 1000:.1f} ms CPU a frame)", flush=True)


if __name__ == "__main__":
    main(sys.argv)
