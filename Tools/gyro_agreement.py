#!/usr/bin/env python3
"""How well a Stray Scanner session's rotations agree with its own gyroscope: ARKit's and a replay's.

usage: ARSIM_EXTRA_REQUIREMENTS=Tools/requirements-planes.txt \
         Tools/python.sh Tools/gyro_agreement.py FOLDER TRAJECTORY
  FOLDER      a Stray folder with odometry.csv (ARKit's poses) and imu.csv (gyroscope, rad/s)
  TRAJECTORY  `arsim replay FOLDER --trajectory TRAJECTORY` (TUM: camera in the session world)

The gyroscope, integrated, is a third opinion on the camera's rotation that neither ARKit nor ARSim
made. For each source (ARKit's poses, the replay's), the camera-from-IMU rotation is fitted to the
rotation increments of 0.1 s steps, then every 2 s window's rotation is compared with the
gyroscope's over the same window: the angle between them (median and max over windows every 0.5 s,
and the windows' start times). A source whose windows disagree with the gyroscope more than the other's
is the less self-consistent one: where it is ARKit's, its poses limit what a figure against them (ATE,
the world's tilt) can show.
"""
import sys

import numpy as np
from scipy.spatial.transform import Rotation, Slerp

SPAN = 2.0  # seconds per compared window
STEP = 0.5  # seconds between window starts


def gyro_orientation(imu):
    """The gyroscope's orientation (device frame) integrated over the IMU's timestamps, interpolable."""
    t, w = imu[:, 0], imu[:, 4:7]
    increments = Rotation.from_rotvec(w[:-1] * np.diff(t)[:, None])
    rotations = [Rotation.identity()]
    for increment in increments:
        rotations.append(rotations[-1] * increment)
    return t, Slerp(t, Rotation.concatenate(rotations))


def camera_from_imu(times, rotations, gyro_t, gyro):
    """The rotation taking the gyroscope's rotation increments onto the source's (0.1 s steps)."""
    source, imu = [], []
    for k in range(len(times)):
        j = np.searchsorted(times, times[k] + 0.1)
        if j >= len(times) or times[k] < gyro_t[0] or times[j] > gyro_t[-1]:
            continue
        g = (gyro(times[k]).inv() * gyro(times[j])).as_rotvec()
        if np.linalg.norm(g) > 0.02:  # enough turn to give the axis
            source.append((rotations[k].inv() * rotations[j]).as_rotvec())
            imu.append(g)
    fit, _ = Rotation.align_vectors(np.array(source), np.array(imu))
    return fit


def windows(times, rotations, gyro_t, gyro):
    x = camera_from_imu(times, rotations, gyro_t, gyro)
    out = []
    for start in np.arange(times[0], times[-1] - SPAN, STEP):
        i, j = np.searchsorted(times, start), np.searchsorted(times, start + SPAN)
        if j >= len(times) or times[i] < gyro_t[0] or times[j] > gyro_t[-1]:
            continue
        source = rotations[i].inv() * rotations[j]
        predicted = x * (gyro(times[i]).inv() * gyro(times[j])) * x.inv()
        out.append((times[i], np.degrees((source.inv() * predicted).magnitude())))
    return np.array(out)


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__.split("\n\n")[1])
    folder, trajectory = sys.argv[1], sys.argv[2]
    odometry = np.loadtxt(folder + "/odometry.csv", delimiter=",", skiprows=1)
    imu = np.loadtxt(folder + "/imu.csv", delimiter=",", skiprows=1)
    replay = np.loadtxt(trajectory)
    gyro_t, gyro = gyro_orientation(imu)
    start = odometry[0, 0]
    print(f"{folder}: rotation over {SPAN:g} s windows against the gyroscope's (degrees)")
    for name, times, quaternions in [
        ("ARKit's poses", odometry[:, 0], odometry[:, 5:9]),
        ("ARSim's replay", replay[:, 0], replay[:, 4:8]),
    ]:
        result = windows(times, Rotation.from_quat(quaternions), gyro_t, gyro)
        worst = result[np.argmax(result[:, 1])]
        print(
            f"  {name:15s} median {np.median(result[:, 1]):.2f}, max {worst[1]:.2f} "
            f"(window from {worst[0] - start:.1f} s), {len(result)} windows"
        )


if __name__ == "__main__":
    main()
