"""The life of a replay's plane anchors, from `arsim replay --events FILE`: per frame, anchors added,
removed (and what absorbed them) and reclassified, with each one's extent; at the end, for every pair
of parallel anchors, how far apart their planes are and the angle between them (a door and its wall
should be two anchors a few centimetres apart, parallel within a fraction of a degree).

With `--trajectory FILE --groundtruth FILE` (the replay's `--trajectory` and the recording's TUM
ground truth), the final anchors are also shown in the ground truth's world (through the rigid fit of
the two trajectories): each one's normal, its distance from the ground-truth origin along it, and the
box its boundary spans.

Usage: Tools/python.sh Tools/plane_history.py EVENTS.jsonl [--alignment vertical|horizontal|any]
                                              [--trajectory TRAJ.txt --groundtruth groundtruth.txt]
"""

import argparse
import json
import math

import numpy as np


def boundary(anchor):
    """The anchor's boundary in the session's world (n x 3)."""
    m = np.array(anchor["transform"], dtype=float).reshape(4, 4).T  # column-major, anchor to world
    local = np.array(anchor["boundary"], dtype=float)
    return local @ m[:3, :3].T + m[:3, 3]


def plane(points):
    """Unit normal (Newell's, of the polygon) and centroid of a planar polygon."""
    normal = np.zeros(3)
    for a, b in zip(points, np.roll(points, -1, axis=0)):
        normal += np.cross(a, b)
    return normal / np.linalg.norm(normal), points.mean(axis=0)


def read_tum(path):
    poses = {}
    with open(path) as f:
        for line in f:
            fields = line.split()
            if fields and not fields[0].startswith("#"):
                poses[round(float(fields[0]), 4)] = np.array([float(v) for v in fields[1:4]])
    return poses


def rigid_fit(source, target):
    """R, t minimising |R source + t - target| (Umeyama without scale)."""
    ms, mt = source.mean(axis=0), target.mean(axis=0)
    u, _, vt = np.linalg.svd((target - mt).T @ (source - ms))
    d = np.diag([1, 1, np.sign(np.linalg.det(u @ vt))])
    r = u @ d @ vt
    return r, mt - r @ ms


def describe(anchor):
    extent = anchor["extent"]
    return "%s %s %s %.2fx%.2f m" % (
        anchor["id"][-6:], anchor["alignment"], anchor["classification"], extent["width"], extent["height"])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("events")
    parser.add_argument("--alignment", default="any", choices=["vertical", "horizontal", "any"])
    parser.add_argument("--trajectory")
    parser.add_argument("--groundtruth")
    args = parser.parse_args()
    live = {}
    with open(args.events) as f:
        for number, line in enumerate(f, 1):
            try:
                event = json.loads(line)
            except json.JSONDecodeError as error:
                raise SystemExit("%s:%d: not JSON (%s)" % (args.events, number, error))
            kind = event.get("event")
            for anchor in event.get("anchors", []):
                if args.alignment != "any" and anchor["alignment"] != args.alignment:
                    continue
                key = anchor["id"]
                if kind == "didAdd":
                    print("frame %d: added %s" % (event["frame"], describe(anchor)))
                    live[key] = anchor
                elif kind == "didRemove":
                    by = anchor.get("absorbedBy")
                    print("frame %d: removed %s%s" % (
                        event["frame"], describe(anchor), " into " + by[-6:] if by else ""))
                    live.pop(key, None)
                elif kind == "didUpdate":
                    old = live.get(key)
                    if old is not None and old["classification"] != anchor["classification"]:
                        print("frame %d: %s now %s" % (event["frame"], describe(old), anchor["classification"]))
                    live[key] = anchor
    print("final: %d anchors" % len(live))
    anchors = list(live.values())
    for a in anchors:
        print("  " + describe(a))
    for i, a in enumerate(anchors):
        for b in anchors[i + 1:]:
            if a["alignment"] != b["alignment"]:
                continue
            (na, pa), (nb, pb) = plane(boundary(a)), plane(boundary(b))
            angle = math.degrees(math.acos(min(1.0, abs(float(na @ nb)))))
            if angle > 5:
                continue
            gap = float((pb - pa) @ na)
            print("  %s vs %s: planes %.1f mm apart, %.2f degrees" % (
                a["id"][-6:], b["id"][-6:], abs(gap) * 1000, angle))

    if args.trajectory and args.groundtruth:
        estimate, truth = read_tum(args.trajectory), read_tum(args.groundtruth)
        common = sorted(set(estimate) & set(truth))
        if len(common) < 3:
            raise SystemExit("%s: fewer than 3 timestamps in common with %s" % (args.trajectory, args.groundtruth))
        r, t = rigid_fit(np.array([estimate[k] for k in common]), np.array([truth[k] for k in common]))
        print("in the ground truth's world (%d poses fitted):" % len(common))
        for a in anchors:
            points = boundary(a) @ r.T + t
            normal, centre = plane(points)
            low, high = points.min(axis=0), points.max(axis=0)
            print("  %s: normal (%.4f, %.4f, %.4f), offset %.4f m, box x %.2f..%.2f y %.2f..%.2f z %.3f..%.3f" % (
                a["id"][-6:], *normal, float(normal @ centre), low[0], high[0], low[1], high[1], low[2], high[2]))


if __name__ == "__main__":
    main()
