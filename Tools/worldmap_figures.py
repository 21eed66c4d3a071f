"""Issue 16's world-map figures from two replays of one recording (Tools/worldmap-figures.sh):
session A made the map, session B started from it.

  worldmap_figures.py GROUNDTRUTH TRAJ_A EVENTS_A TRAJ_B [--sim3]

Prints the ATE of B in the map's world (B's positions through A's SE(3) alignment to the ground
truth, Sim(3) with --sim3 for monocular sessions, fitted to the frames from A's first tracked one;
no alignment of its own) and, on the frames both sessions tracked, how far A's anchors are
from where A saw them, in B's camera against A's (metres, degrees; the largest over frames and
anchors). TUM trajectories of the optical frame; the events file as `arsim replay --events` writes it.
"""
import json
import sys

import numpy as np


def tum(path):
    poses = {}
    for line in open(path):
        if line.startswith("#") or not line.strip():
            continue
        t, x, y, z, qx, qy, qz, qw = map(float, line.split())
        poses[round(t, 4)] = pose(np.array([x, y, z]), np.array([qx, qy, qz, qw]))
    return poses


def pose(t, q):
    x, y, z, w = q / np.linalg.norm(q)
    r = np.array([
        [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
        [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
        [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]])
    m = np.eye(4)
    m[:3, :3], m[:3, 3] = r, t
    return m


def umeyama(src, dst, scale=False):
    """The rigid (with scale: similarity) transform taking points src to dst (least squares)."""
    ms, md = src.mean(0), dst.mean(0)
    u, d, vt = np.linalg.svd((dst - md).T @ (src - ms))
    s = np.diag([1, 1, np.sign(np.linalg.det(u @ vt))])
    c = np.trace(np.diag(d) @ s) / np.square(src - ms).sum() if scale else 1.0
    m = np.eye(4)
    m[:3, :3] = c * (u @ s @ vt)
    m[:3, 3] = md - m[:3, :3] @ ms
    return m


def main(truth_path, a_path, events_path, b_path, *flags):
    truth, a, b = tum(truth_path), tum(a_path), tum(b_path)
    events = [json.loads(line) for line in open(events_path)]
    # A's alignment is fitted to the frames A tracked: while initialising, a monocular session's
    # provisional poses hold their position (the map does not exist yet).
    tracked_from = min(
        (e["t"] for e in events if e["event"] == "trackingState" and e["state"] != "limited:initializing"),
        default=0)
    common = sorted(t for t in set(a) & set(truth) if t >= round(tracked_from, 4))
    truth_from_a = umeyama(
        np.array([a[t][:3, 3] for t in common]), np.array([truth[t][:3, 3] for t in common]), "--sim3" in flags)
    errors = [np.linalg.norm((truth_from_a @ b[t])[:3, 3] - truth[t][:3, 3]) for t in sorted(b) if t in truth]
    print(f"B in the map's world: ATE {np.sqrt(np.mean(np.square(errors))) * 100:.2f} cm over {len(errors)} frames")
    anchors = {}
    for event in events:
        for anchor in event.get("anchors", []) if event["event"] in ("didAdd", "didUpdate") else []:
            anchors[anchor["id"]] = np.array(anchor["transform"]).reshape(4, 4).T
    worst_m = worst_deg = 0.0
    both = sorted(set(a) & set(b))
    for t in both:
        for m in anchors.values():
            in_a, in_b = np.linalg.inv(a[t]) @ m, np.linalg.inv(b[t]) @ m
            worst_m = max(worst_m, np.linalg.norm(in_a[:3, 3] - in_b[:3, 3]))
            c = (np.trace(in_a[:3, :3].T @ in_b[:3, :3]) - 1) / 2
            worst_deg = max(worst_deg, np.degrees(np.arccos(np.clip(c, -1, 1))))
    print(f"anchors ({len(anchors)}) over {len(both)} frames both tracked: at most {worst_m * 100:.2f} cm, {worst_deg:.3f} deg")


if __name__ == "__main__":
    main(*sys.argv[1:])
