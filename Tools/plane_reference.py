#!/usr/bin/env python3
"""A plane reference for real captures (issue 45): fuse, segment, score a replay's anchors, draw.

usage: Tools/python.sh Tools/plane_reference.py [--table OUT.md] [--command TEXT] [--built TEXT] CAPTURE...
       (run through Tools/plane-reference.sh, which imports and replays first)

Per CAPTURE it reads out/planes/import/CAPTURE (the capture as `arsim import` wrote it: ARSim format,
depth, confidence, ARKit's poses as the reference trajectory) and out/planes/replay/CAPTURE.events.jsonl
and .traj.txt (`arsim replay SRC --events --trajectory`, default options), and writes the caches
out/planes/CAPTURE-fused.npz and CAPTURE-reference.npz and the picture out/planes/CAPTURE.png.

Reference: every frame's depth (confidence 2, or >= 1 when the recording has no 2; at most 4 m) is
fused with the reference pose in an Open3D ScalableTSDFVolume (2 cm voxels, 8 cm truncation). Its
point cloud is segmented by repeated RANSAC (2 cm) among the points facing the most common direction
left; the inliers whose normals agree (25 degrees) split into connected regions (DBSCAN, 5 cm); each
region of >= 0.1 m^2 is refitted, grown over connected points within 4 cm of its plane, and merged
with regions of the same plane that touch it (vertical ones: within 1 m). Each is one surface:
least-squares plane, outline (convex hull in its plane), occupancy grid (4 cm cells, closed, holes
filled) and area (occupied cells); labels from geometry and the reference's gravity: floor (the lowest
big upward horizontal and every upward one within 10 cm of it, one surface), ceiling (likewise from the
highest downward one), wall (vertical, >= 0.7 m^2), seat (upward, 0.3-0.6 m over the floor, < 0.6 m^2),
table (upward, 0.4-1.2 m over the floor), else none.

Alignment: the session's world is mapped into the reference's by the rotation of the matched poses
(timestamps within 5 ms; chordal mean of R_ref R_session^T) and the translation matching the mean
positions. The SE(3) Umeyama fit of the positions alone is printed beside it with its residual: on a
straight or level path it leaves the rotation about the path free.

ON criterion: an anchor (its final state after the event log's adds, updates and removes) is ON a
surface iff its normal is within 5 degrees of the surface's (unsigned), and its centre and >= 80% of its
outline (the boundary polygon resampled along its perimeter, or the extent's rectangle) lie within 5 cm
of the surface's plane and inside its occupancy grid dilated by 5 cm; of several, the nearest plane.
On fused depth: an anchor on no surface whose interior (a 5 cm grid inside its outline) has, at >= 50%
of its points, a fused point within 6 cm whose distance from the anchor's plane is <= 3 cm and whose
normal lies within 15 degrees of the anchor's: it lies on geometry the capture saw (the segmentation made
no surface of it, or its outline or normal misses the surface's), where the rest float off any of it.
Moving depth: voxels where depth lies > 10 cm from the fused model in several frames (a person).
Progress goes to stderr, results to stdout; --table writes the Markdown table.
"""
import inspect
import json
import os
import struct
import sys
import time
import zlib

# Open3D's RANSAC draws its samples on several threads in no fixed order: one thread keeps the
# reference the same from run to run.
os.environ.setdefault("OMP_NUM_THREADS", "1")

import cv2  # noqa: E402
import matplotlib  # noqa: E402
import numpy as np  # noqa: E402
import open3d as o3d  # noqa: E402
from scipy import ndimage  # noqa: E402
from scipy.spatial import ConvexHull, cKDTree  # noqa: E402

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.path import Path as MplPath  # noqa: E402

OUT = "out/planes"
VOXEL, TRUNC, MAX_DEPTH = 0.02, 0.08, 4.0
RANSAC_DIST, NORMAL_COS, CLUSTER_EPS, MIN_AREA, CELL = 0.02, np.cos(np.radians(25)), 0.05, 0.1, 0.04
GROW_DIST, MERGE_ANGLE, WALL_GAP, FOOTPRINT = 0.04, 5.0, 1.0, 0.3
ON_ANGLE, ON_DIST, ON_SHARE = 5.0, 0.05, 0.8
SUPPORT_DIST, SUPPORT_SHARE = 0.03, 0.5  # an anchor on no surface that lies on fused depth
# The fusion's cache is rebuilt when these change (or the import is newer than it).
FUSE_KEY = f"{VOXEL} {TRUNC} {MAX_DEPTH} open3d {o3d.__version__}"
LABEL_COLOURS = {"floor": "#c8a165", "wall": "#6a8fc0", "ceiling": "#b0b0b0", "table": "#e07b20",
                 "seat": "#9b59b6", "none": "#8c8c8c"}


def log(*a):
    print(*a, file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------------------- reading
def read_exr(path):
    """A single-channel 32-bit float OpenEXR scanline image (no, ZIPS or ZIP compression)."""
    data = open(path, "rb").read()
    pos, attrs = 8, {}
    while data[pos] != 0:
        name_end = data.index(b"\0", pos)
        type_end = data.index(b"\0", name_end + 1)
        size = struct.unpack_from("<i", data, type_end + 1)[0]
        attrs[data[pos:name_end].decode()] = data[type_end + 5:type_end + 5 + size]
        pos = type_end + 5 + size
    x0, y0, x1, y1 = struct.unpack("<4i", attrs["dataWindow"])
    w, h, comp = x1 - x0 + 1, y1 - y0 + 1, attrs["compression"][0]
    lines = {0: 1, 2: 1, 3: 16}[comp]
    offsets = struct.unpack_from(f"<{(h + lines - 1) // lines}Q", data, pos + 1)
    rows = []
    for off in offsets:
        y, size = struct.unpack_from("<2i", data, off)
        raw = data[off + 8:off + 8 + size]
        n = min(lines, y1 + 1 - y) * w * 4
        if comp and size < n:
            t = np.frombuffer(zlib.decompress(raw), np.uint8).astype(np.int64)
            t = np.cumsum(np.r_[t[0], t[1:] - 128]) % 256  # undo the predictor, then the interleave
            half = (len(t) + 1) // 2
            out = np.empty(len(t), np.uint8)
            out[0::2], out[1::2] = t[:half], t[half:]
            raw = out.tobytes()
        rows.append(np.frombuffer(raw, "<f4").reshape(-1, w))
    return np.vstack(rows)[:h]


def quat_matrix(q):
    x, y, z, w = q / np.linalg.norm(q)
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                     [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                     [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]])


def read_tum(path):
    rows = [list(map(float, line.split())) for line in open(path) if line.strip() and line[0] != "#"]
    return {r[0]: np.vstack([np.c_[quat_matrix(np.array(r[4:8])), r[1:4]], [0, 0, 0, 1]]) for r in rows}


def match(times_a, times_b, tolerance=0.005):
    """Pairs (a, b) of timestamps within `tolerance`, each a nearest neighbour."""
    b = np.array(sorted(times_b))
    pairs = []
    for t in sorted(times_a):
        i = np.clip(np.searchsorted(b, t), 1, len(b) - 1)
        j = i if abs(b[i] - t) < abs(b[i - 1] - t) else i - 1
        if abs(b[j] - t) <= tolerance:
            pairs.append((t, b[j]))
    return pairs


# ---------------------------------------------------------------------------------------- reference
def frames_of(folder):
    session = json.load(open(f"{folder}/session.json"))
    cam = session.get("depthCamera", session["camera"])
    poses = read_tum(f"{folder}/{session['groundTruth']['trajectory']}")
    rows = [line.split() for line in open(f"{folder}/{session['frames']}") if line.strip() and line[0] != "#"]
    pose_of = dict(match([float(r[0]) for r in rows], poses.keys(), 0.01))
    frames = [(float(r[0]), r[2], r[3] if len(r) > 3 else "-") for r in rows if r[2] != "-"]
    frames = [(t, d, c, poses[pose_of[t]]) for t, d, c in frames if t in pose_of]
    return session, cam, frames


def load_depth(folder, session, name, conf_name, min_conf):
    if name.endswith(".exr"):
        depth = read_exr(f"{folder}/{name}").astype(np.float32)
    else:
        depth = cv2.imread(f"{folder}/{name}", cv2.IMREAD_UNCHANGED).astype(np.float32) * session["depthScale"]
    depth[~np.isfinite(depth) | (depth > MAX_DEPTH)] = 0
    if conf_name != "-":
        depth[cv2.imread(f"{folder}/{conf_name}", cv2.IMREAD_UNCHANGED) < min_conf] = 0
    return depth


def fuse(folder):
    session, cam, frames = frames_of(folder)
    confs = [c for _, _, c, _ in frames if c != "-"]
    has2 = any((cv2.imread(f"{folder}/{c}", cv2.IMREAD_UNCHANGED) == 2).any() for c in confs[:: max(1, len(confs) // 10)])
    min_conf = 2 if has2 else 1
    intr = o3d.camera.PinholeCameraIntrinsic(cam["width"], cam["height"], cam["fx"], cam["fy"], cam["cx"], cam["cy"])
    vol = o3d.pipelines.integration.ScalableTSDFVolume(
        voxel_length=VOXEL, sdf_trunc=TRUNC, color_type=o3d.pipelines.integration.TSDFVolumeColorType.NoColor)
    grey = o3d.geometry.Image(np.zeros((cam["height"], cam["width"], 3), np.uint8))
    for i, (t, d, c, pose) in enumerate(frames):
        depth = load_depth(folder, session, d, c, min_conf)
        rgbd = o3d.geometry.RGBDImage.create_from_color_and_depth(
            grey, o3d.geometry.Image(depth), depth_scale=1.0, depth_trunc=MAX_DEPTH, convert_rgb_to_intensity=False)
        vol.integrate(rgbd, intr, np.linalg.inv(pose))
        if i % 100 == 0:
            log(f"  fuse {i}/{len(frames)}")
    pcd = vol.extract_point_cloud().voxel_down_sample(VOXEL)
    if not pcd.has_normals():
        pcd.estimate_normals(o3d.geometry.KDTreeSearchParamHybrid(radius=3 * VOXEL, max_nn=30))
    log(f"  fused {len(frames)} frames (confidence >= {'2' if confs and has2 else '1' if confs else 'none'}): "
        f"{len(pcd.points)} points")
    return session, cam, frames, min_conf, pcd


def plane_basis(n):
    a = np.array([1.0, 0, 0]) if abs(n[0]) < 0.9 else np.array([0, 1.0, 0])
    e1 = np.cross(n, a)
    e1 /= np.linalg.norm(e1)
    return e1, np.cross(n, e1)


def fit(p):
    c = p.mean(0)
    return c, np.linalg.svd(p - c, full_matrices=False)[2][2]


def grow(region, candidates, pts):
    """The candidates connected to the region through points closer than CLUSTER_EPS (breadth first)."""
    tree, taken = cKDTree(pts[candidates]), np.zeros(len(candidates), bool)
    frontier = pts[region]
    while len(frontier):
        hits = {j for js in tree.query_ball_point(frontier, CLUSTER_EPS) for j in js if not taken[j]}
        hits = np.fromiter(hits, int, len(hits))
        taken[hits] = True
        frontier = pts[candidates[hits]]
    return np.union1d(region, candidates[taken])


def segment(pcd, up, cameras):
    """Planar surfaces of the fused cloud: list of dicts (normal, offset, basis, grid, hull, area).

    Repeated RANSAC proposes a plane; its inliers with agreeing normals split into connected regions;
    each region of MIN_AREA or more is refitted and grown over the connected points within GROW_DIST of
    its plane (real fused floors and walls bend by a few centimetres over a room: pose drift, depth
    bias at range), and finally regions of one surface that RANSAC split are merged."""
    pts, nrm = np.asarray(pcd.points), np.asarray(pcd.normals)
    alive = np.ones(len(pts), bool)
    regions, misses = [], 0
    o3d.utility.random.seed(0)
    rng = np.random.default_rng(0)
    golden = np.pi * (3 - np.sqrt(5))  # 400 directions over the upper hemisphere (a plane's normal up to sign)
    z = np.linspace(1, 0, 400)
    directions = np.c_[np.sqrt(1 - z * z) * np.cos(golden * np.arange(400)), np.sqrt(1 - z * z) * np.sin(golden * np.arange(400)), z]
    bins = np.argmax(np.abs(nrm @ directions.T), axis=1)
    while misses < 30 and len(regions) < 100:
        # RANSAC among the points facing the most common direction left: a slab through the room
        # would otherwise gather the strips it cuts out of every wall it crosses.
        counts = np.bincount(bins[alive], minlength=len(directions))
        if counts.max() < 50:
            break
        idx = np.flatnonzero(alive & (np.abs(nrm @ directions[counts.argmax()]) > NORMAL_COS))
        sample = idx if len(idx) <= 50000 else np.sort(rng.choice(idx, 50000, replace=False))
        sub = o3d.geometry.PointCloud(o3d.utility.Vector3dVector(pts[sample]))
        (a, b, c, d), _ = sub.segment_plane(RANSAC_DIST, 3, 1000)
        n = np.array([a, b, c]) / np.linalg.norm([a, b, c])
        inl = idx[np.abs(pts[idx] @ n + d / np.linalg.norm([a, b, c])) < RANSAC_DIST]
        keep = inl[np.abs(nrm[inl] @ n) > NORMAL_COS]
        alive[keep if len(keep) else idx] = False
        found = 0
        if len(keep) * VOXEL * VOXEL >= MIN_AREA:
            labels = np.asarray(o3d.geometry.PointCloud(o3d.utility.Vector3dVector(pts[keep])).cluster_dbscan(
                CLUSTER_EPS, 4))
            for k in range(labels.max() + 1):
                region = keep[labels == k]
                if len(region) * VOXEL * VOXEL < MIN_AREA:
                    continue
                c, n = fit(pts[region])
                near = np.flatnonzero(alive & (np.abs((pts - c) @ n) < GROW_DIST) & (np.abs(nrm @ n) > NORMAL_COS))
                region = grow(region, near, pts)
                alive[region] = False
                regions.append(region)
                found += 1
        misses = 0 if found else misses + 1
        if os.environ.get("PLANE_DEBUG"):
            log(f"    plane n {np.round(n, 2)}: {len(idx)} facing, {len(inl)} inliers, {len(keep)} agree, "
                f"{found} regions, {alive.sum()} left")
    regions = merge(regions, pts, up)
    g = np.arange(-FOOTPRINT, FOOTPRINT + 1e-9, CELL)
    disc = np.array([(a, b) for a in g for b in g if a * a + b * b <= FOOTPRINT * FOOTPRINT])
    pairs = [(r, s) for r, s in ((r, surface_of(pts[r], nrm[r])) for r in regions) if s and s["area"] >= MIN_AREA]
    label([s for _, s in pairs], up)
    # The floor is one surface to a person (and to ARKit) however the furniture splits it; so is the ceiling.
    for name in ("floor", "ceiling"):
        parts = [r for r, s in pairs if s["label"] == name]
        if len(parts) > 1:
            pairs = [(r, s) for r, s in pairs if s["label"] != name]
            whole = np.concatenate(parts)
            # Where the recorder walked is floor too, however little of it the camera saw.
            feet = None if name != "floor" else (
                cameras[:, None, :] + (disc[:, 0, None] * plane_basis(up)[0] + disc[:, 1, None] * plane_basis(up)[1])[None]
            ).reshape(-1, 3)
            pairs.append((whole, dict(surface_of(pts[whole], nrm[whole], feet), label=name)))
    surfaces = [s for _, s in pairs]
    label(surfaces, up)
    log(f"  segmented {len(surfaces)} surfaces of >= {MIN_AREA} m^2")
    return surfaces


def merge(regions, pts, up):
    """Joins regions whose planes agree (normals within MERGE_ANGLE, 90% of both within GROW_DIST of
    the plane fitted to both) and that touch (closer than 2 CLUSTER_EPS somewhere; vertical ones
    within WALL_GAP: a wall is one wall to a person where a cabinet or a door interrupts it)."""
    merged = True
    while merged:
        merged = False
        fits = [fit(pts[r]) for r in regions]
        trees = [cKDTree(pts[r]) for r in regions]
        for i in range(len(regions)):
            for j in range(i + 1, len(regions)):
                (ci, ni), (cj, nj) = fits[i], fits[j]
                if abs(ni @ nj) < np.cos(np.radians(MERGE_ANGLE)):
                    continue
                both = pts[np.union1d(regions[i], regions[j])[::7]]
                c, n = fit(both)
                if np.percentile(np.abs((both - c) @ n), 90) > GROW_DIST:
                    continue
                gap = WALL_GAP if max(abs(ni @ up), abs(nj @ up)) < np.sin(np.radians(10)) else 2 * CLUSTER_EPS
                if np.isinf(trees[i].query(pts[regions[j]], distance_upper_bound=gap)[0]).all():
                    continue
                regions[i] = np.union1d(regions[i], regions.pop(j))
                merged = True
                break
            if merged:
                break
    return regions


def surface_of(p, pn, footprint=None):
    """The surface of the region p (normals pn); `footprint`: points (on any height) whose projection
    onto its plane belongs to its outline too."""
    if len(p) < 10:
        return None
    c, n = fit(p)
    n = n if n @ pn.mean(0) >= 0 else -n  # towards the free space the camera saw it from
    e1, e2 = plane_basis(n)
    q = p if footprint is None else np.vstack([p, footprint])
    uv = np.c_[(q - c) @ e1, (q - c) @ e2]
    lo = uv.min(0) - CELL
    ij = np.floor((uv - lo) / CELL).astype(int)
    grid = np.zeros(ij.max(0) + 2, bool)
    grid[ij[:, 0], ij[:, 1]] = True
    grid = ndimage.binary_fill_holes(ndimage.binary_closing(grid, iterations=2) | grid)  # what occlusion hid
    try:
        hull = uv[ConvexHull(uv).vertices]
    except Exception:
        return None
    return {"normal": n, "offset": float(n @ c), "centre": c, "e1": e1, "e2": e2, "lo": lo, "grid": grid,
            "hull": hull, "area": float(grid.sum() * CELL * CELL), "points": len(p)}


def label(surfaces, up):
    cos10, sin10 = np.cos(np.radians(10)), np.sin(np.radians(10))
    for s in surfaces:
        d = s["normal"] @ up
        s["orient"] = "up" if d > cos10 else "down" if d < -cos10 else "vertical" if abs(d) < sin10 else "slanted"
        s["height"] = float(s["centre"] @ up)
        s["label"] = "none"
    ups = [s for s in surfaces if s["orient"] == "up" and s["area"] >= 1.0]
    floor = min((s["height"] for s in ups), default=None)
    downs = [s for s in surfaces if s["orient"] == "down" and s["area"] >= 1.0]
    ceiling = max((s["height"] for s in downs), default=None)
    for s in surfaces:
        h = None if floor is None else s["height"] - floor
        if s["orient"] == "up" and h is not None and abs(h) < 0.1:
            s["label"] = "floor"
        elif s["orient"] == "down" and ceiling is not None and abs(s["height"] - ceiling) < 0.1:
            s["label"] = "ceiling"
        elif s["orient"] == "vertical" and s["area"] >= 0.7:
            s["label"] = "wall"
        elif s["orient"] == "up" and h is not None and 0.3 <= h < 0.6 and s["area"] < 0.6:
            s["label"] = "seat"
        elif s["orient"] == "up" and h is not None and 0.4 <= h <= 1.2:
            s["label"] = "table"
    return floor


def moving_points(folder, session, cam, frames, min_conf, pcd):
    """Centres of the 5 cm voxels where the depth of at least 3 of every third frame lies > 10 cm from
    the fused model (something that moved: the model keeps what stayed; once is a stray pixel)."""
    tree = cKDTree(np.asarray(pcd.points))
    v, u = np.mgrid[0:cam["height"]:2, 0:cam["width"]:2]
    keys = []
    for t, d, c, pose in frames[::3]:
        z = load_depth(folder, session, d, c, min_conf)[::2, ::2]
        ok = z > 0
        p = np.c_[(u[ok] - cam["cx"]) / cam["fx"] * z[ok], (v[ok] - cam["cy"]) / cam["fy"] * z[ok], z[ok]]
        p = p @ pose[:3, :3].T + pose[:3, 3]
        keys.append(np.unique(np.floor(p[tree.query(p, distance_upper_bound=0.1)[0] > 0.1] / 0.05), axis=0))
    voxels, counts = np.unique(np.vstack(keys), axis=0, return_counts=True)
    return (voxels[counts >= 3] + 0.5) * 0.05


def cached(path, key, newer_than):
    if os.path.exists(path) and os.path.getmtime(path) > os.path.getmtime(newer_than):
        z = np.load(path, allow_pickle=True)
        if str(z["key"]) == key:
            return {k: z[k].item() if z[k].dtype == object and z[k].ndim == 0 else z[k] for k in z.files}
    return None


def reference(capture):
    """(info, surfaces, cloud, moved, poses): the fusion cached in CAPTURE-fused.npz (slow), the
    segmentation in CAPTURE-reference.npz."""
    folder = f"{OUT}/import/{capture}"
    fused = cached(f"{OUT}/{capture}-fused.npz", FUSE_KEY, f"{folder}/session.json")
    if fused is None:
        log(f"{capture}: fusing {folder}")
        session, cam, frames, min_conf, pcd = fuse(folder)
        gravity = np.array(session["groundTruth"].get("gravity", [0, -1, 0]), float)
        fused = {"key": FUSE_KEY, "points": np.asarray(pcd.points), "normals": np.asarray(pcd.normals),
                 "moved": moving_points(folder, session, cam, frames, min_conf, pcd),
                 "poses": {t: p for t, _, _, p in frames}, "up": -gravity / np.linalg.norm(gravity),
                 "frames": len(frames), "min_conf": min_conf}
        np.savez(f"{OUT}/{capture}-fused.npz", **{k: np.array(v, dtype=object) if isinstance(v, dict) else v
                                                   for k, v in fused.items()})
    pcd = o3d.geometry.PointCloud(o3d.utility.Vector3dVector(fused["points"]))
    pcd.normals = o3d.utility.Vector3dVector(fused["normals"])
    up = fused["up"]
    code = "".join(inspect.getsource(f) for f in (fit, grow, segment, merge, surface_of, label))  # and parameters:
    key = f"{FUSE_KEY} {RANSAC_DIST} {NORMAL_COS} {CLUSTER_EPS} {MIN_AREA} {CELL} {GROW_DIST} {MERGE_ANGLE} " \
          f"{WALL_GAP} {FOOTPRINT} {zlib.crc32(code.encode()):08x} {os.environ['OMP_NUM_THREADS']} threads"
    segmented = cached(f"{OUT}/{capture}-reference.npz", key, f"{OUT}/{capture}-fused.npz")
    if segmented is None:
        log(f"{capture}: segmenting {len(pcd.points)} points")
        cameras = np.array([p[:3, 3] for p in fused["poses"].values()])[::5]
        segmented = {"key": key, "surfaces": np.array(segment(pcd, up, cameras), dtype=object)}
        np.savez(f"{OUT}/{capture}-reference.npz", **segmented)
    surfaces = list(segmented["surfaces"])
    floors = [s for s in surfaces if s["label"] == "floor"]
    tilt = None
    if floors:
        big = max(floors, key=lambda s: s["area"])
        tilt = float(np.degrees(np.arccos(np.clip(big["normal"] @ up, -1, 1))))
    info = {"up": up, "frames": int(fused["frames"]), "min_conf": int(fused["min_conf"]), "floor_tilt": tilt,
            "floor": min((s["height"] for s in floors), default=None),
            "fused": (np.asarray(fused["points"]), np.asarray(fused["normals"]))}
    return info, surfaces, np.asarray(pcd.voxel_down_sample(0.05).points), fused["moved"], fused["poses"]


# ---------------------------------------------------------------------------------------- scoring
def umeyama(src, dst):
    """R, t minimising |R src + t - dst| (no scale)."""
    ms, md = src.mean(0), dst.mean(0)
    u, _, vt = np.linalg.svd((dst - md).T @ (src - ms))
    s = np.diag([1, 1, np.sign(np.linalg.det(u @ vt))])
    r = u @ s @ vt
    return r, md - r @ ms


def final_anchors(path):
    anchors = {}
    for line in open(path):
        e = json.loads(line)
        for a in e.get("anchors", []):
            if "alignment" not in a:
                continue
            if e["event"] == "didRemove":
                anchors.pop(a["id"], None)
            else:
                anchors[a["id"]] = a
    return list(anchors.values())


def outline(a):
    """The anchor's outline in its own coordinates (x, z), resampled to 48 points along the perimeter."""
    if a.get("boundary"):
        poly = np.array(a["boundary"])[:, [0, 2]]
    else:
        w, h, r = a["extent"]["width"], a["extent"]["height"], a["extent"]["rotationOnYAxis"]
        rect = np.array([[-w, -h], [w, -h], [w, h], [-w, h]]) / 2
        c, s = np.cos(r), np.sin(r)
        poly = rect @ np.array([[c, -s], [s, c]]).T + np.array(a["center"])[[0, 2]]
    closed = np.vstack([poly, poly[:1]])
    seg = np.linalg.norm(np.diff(closed, axis=0), axis=1)
    cum = np.r_[0, np.cumsum(seg)]
    at = np.linspace(0, cum[-1], 48, endpoint=False)
    return poly, np.c_[np.interp(at, cum, closed[:, 0]), np.interp(at, cum, closed[:, 1])]


def polygon_area(p):
    return 0.5 * abs(np.dot(p[:, 0], np.roll(p[:, 1], 1)) - np.dot(p[:, 1], np.roll(p[:, 0], 1)))


def inside(s, pts, dilate):
    uv = np.c_[(pts - s["centre"]) @ s["e1"], (pts - s["centre"]) @ s["e2"]]
    ij = np.floor((uv - s["lo"]) / CELL).astype(int)
    grid = ndimage.binary_dilation(s["grid"], iterations=dilate) if dilate else s["grid"]
    ok = (ij >= 0).all(1) & (ij < grid.shape).all(1)
    res = np.zeros(len(pts), bool)
    res[ok] = grid[ij[ok, 0], ij[ok, 1]]
    return res


def support(x, points, normals, tree):
    """Share of an anchor's interior (a 5 cm grid inside its outline) with a fused point within
    SUPPORT_DIST of its plane, within 6 cm of the grid point, whose normal is within 15° of the
    anchor's: how much of the anchor lies on depth the capture saw, whether or not the segmentation
    made a surface of it."""
    n, poly, c = x["normal"], x["poly"], x["centre"]
    e1 = poly[1] - poly[0]
    e1 = e1 - (e1 @ n) * n
    if np.linalg.norm(e1) < 1e-9:
        return 0.0
    e1 /= np.linalg.norm(e1)
    e2 = np.cross(n, e1)
    uv = np.c_[(poly - c) @ e1, (poly - c) @ e2]
    lo, hi = uv.min(0), uv.max(0)
    gu, gv = np.meshgrid(np.arange(lo[0], hi[0], 0.05), np.arange(lo[1], hi[1], 0.05))
    grid = np.c_[gu.ravel(), gv.ravel()]
    grid = grid[MplPath(uv).contains_points(grid)]
    if len(grid) == 0:
        return 0.0
    pts = c + grid[:, :1] * e1 + grid[:, 1:] * e2
    cos_limit = np.cos(np.radians(15))
    hits = 0
    for p, idx in zip(pts, tree.query_ball_point(pts, 0.06)):
        if idx and np.any((np.abs((points[idx] - p) @ n) <= SUPPORT_DIST) & (np.abs(normals[idx] @ n) >= cos_limit)):
            hits += 1
    return hits / len(grid)


def score(capture, info, surfaces, moved, ref_poses):
    base = f"{OUT}/replay/{capture}"
    session_poses = read_tum(f"{base}.traj.txt")
    pairs = match(session_poses.keys(), ref_poses.keys())
    src = np.array([session_poses[a][:3, 3] for a, _ in pairs])
    dst = np.array([ref_poses[b][:3, 3] for _, b in pairs])
    rmse = lambda r, t: float(np.sqrt(((src @ r.T + t - dst) ** 2).sum(1).mean()))  # noqa: E731
    ru, tu = umeyama(src, dst)
    # The rotation from the matched orientations (chordal mean of R_ref R_session^T), the translation
    # from the positions: positions alone leave the rotation about a straight or level path free.
    u, _, vt = np.linalg.svd(sum(ref_poses[b][:3, :3] @ session_poses[a][:3, :3].T for a, b in pairs))
    r = u @ np.diag([1, 1, np.sign(np.linalg.det(u @ vt))]) @ vt
    t = dst.mean(0) - r @ src.mean(0)
    angle = lambda a, b: float(np.degrees(np.arccos(np.clip(a @ b, -1, 1))))  # noqa: E731
    residual = {"pose": rmse(r, t), "umeyama": rmse(ru, tu), "tilt": angle(r @ [0, 1, 0], info["up"]),
                "umeyama_tilt": angle(ru @ [0, 1, 0], info["up"]),
                "differ": float(np.degrees(np.arccos(np.clip((np.trace(r @ ru.T) - 1) / 2, -1, 1))))}
    up, dil = info["up"], int(np.ceil(ON_DIST / CELL))
    points, normals = info["fused"]
    tree = cKDTree(points)
    anchors = []
    for a in final_anchors(f"{base}.events.jsonl"):
        m = np.array(a["transform"]).reshape(4, 4).T
        poly, samples = outline(a)
        to_ref = lambda q: (np.c_[q[:, 0], np.zeros(len(q)), q[:, 1]] @ m[:3, :3].T + m[:3, 3]) @ r.T + t  # noqa: E731
        n = r @ m[:3, 1]
        centre = (m[:3, :3] @ np.array(a["center"]) + m[:3, 3]) @ r.T + t
        x = {"a": a, "normal": n, "centre": centre, "poly": to_ref(poly), "samples": to_ref(samples),
             "area": polygon_area(poly) if a.get("boundary") else a["extent"]["width"] * a["extent"]["height"],
             "on": None, "centre_on": None}
        best = centre_best = None
        for k, s in enumerate(surfaces):
            angle = np.degrees(np.arccos(min(1.0, abs(n @ s["normal"]))))
            if angle > ON_ANGLE:
                continue
            dist = abs(centre @ s["normal"] - s["offset"])
            near = np.abs(x["samples"] @ s["normal"] - s["offset"]) <= ON_DIST
            if dist > ON_DIST or not inside(s, centre[None], dil)[0]:
                continue
            if centre_best is None or dist < centre_best[1]:
                centre_best = (k, dist)
            if (near & inside(s, x["samples"], dil)).mean() < ON_SHARE:
                continue
            if best is None or dist < best[1]:
                best = (k, dist, angle)
        if best:
            x["on"], x["offset_err"], x["angle_err"] = best
        if centre_best:
            x["centre_on"] = centre_best[0]  # the relaxed verdict: the outline may overrun the surface
        x["support"] = support(x, points, normals, tree) if best is None else None
        anchors.append(x)
    return residual, len(pairs), anchors


def coverage(s, polys):
    """Share of the surface's occupied cells covered by the union of the anchor polygons on it."""
    if not polys:
        return 0.0
    covered = np.zeros(s["grid"].shape, np.uint8)
    for p in polys:
        uv = np.c_[(p - s["centre"]) @ s["e1"], (p - s["centre"]) @ s["e2"]]
        ij = np.round((uv - s["lo"]) / CELL - 0.5).astype(np.int32)
        cv2.fillPoly(covered, [ij[:, ::-1].reshape(-1, 1, 2)], 1)
    return float((covered.astype(bool) & s["grid"]).sum() / s["grid"].sum())


def summarise(capture, info, surfaces, moved, residual, matched, anchors):
    on = [x for x in anchors if x["on"] is not None]
    off = [x for x in anchors if x["on"] is None]
    found = sorted({x["on"] for x in on})
    largest = sorted(range(len(surfaces)), key=lambda k: -surfaces[k]["area"])[:5]
    cov = [coverage(surfaces[k], [x["poly"] for x in on if x["on"] == k]) for k in largest]
    horiz = lambda s: s["orient"] in ("up", "down")  # noqa: E731
    align_ok = [(x["a"]["alignment"] == "horizontal") == horiz(surfaces[x["on"]]) for x in on]
    cls = lambda x: x["a"]["classification"]  # noqa: E731
    cls_ok = [cls(x) == surfaces[x["on"]]["label"] for x in on]
    def per_label_of(xs, key):
        counts = {}
        for lab in ("floor", "wall", "table", "ceiling", "seat"):
            ys = [x for x in xs if surfaces[x[key]]["label"] == lab]
            if ys:
                counts[lab] = (sum(cls(y) == lab for y in ys), len(ys))
        return counts
    per_label = per_label_of(on, "on")
    centre_on = [x for x in anchors if x["centre_on"] is not None]
    row = {"capture": capture, "residual": residual, "matched": matched, "anchors": len(anchors),
           "off": len(off), "off_area": sum(x["area"] for x in off), "surfaces": len(surfaces),
           "found": len(found), "per_found": len(on) / len(found) if found else None,
           "coverage": [(surfaces[k]["label"], surfaces[k]["area"], c) for k, c in zip(largest, cov)],
           "normal_med": float(np.median([x["angle_err"] for x in on])) if on else None,
           "offset_med": float(np.median([x["offset_err"] for x in on])) if on else None,
           "align": (sum(align_ok), len(on)), "cls": (sum(cls_ok), len(on)), "per_label": per_label,
           "floor_tilt": info["floor_tilt"], "labels": {}, "centre_on": len(centre_on),
           "centre_per_label": per_label_of(centre_on, "centre_on"),
           "on_depth": len([x for x in off if x["support"] >= SUPPORT_SHARE])}
    for s in surfaces:
        row["labels"][s["label"]] = row["labels"].get(s["label"], 0) + 1
    if capture.startswith("record3d-dance") and len(moved):
        tree = cKDTree(moved)
        near = [x for x in off if (tree.query(x["samples"])[0] < 0.1).mean() >= 0.5]
        row["moving"] = (len(near), float(sum(x["area"] for x in near)))
    return row


# ---------------------------------------------------------------------------------------- pictures
def draw(capture, info, surfaces, cloud, anchors, moved, boxes, path):
    """Top-down of the horizontal surfaces and anchors, top-down of the vertical ones, two side views."""
    up = info["up"]
    h1 = np.array([1.0, 0, 0]) - up[0] * up
    h1 /= np.linalg.norm(h1)
    h2 = np.cross(up, h1)
    top, side1, side2 = (lambda p: np.c_[p @ h1, p @ h2]), (lambda p: np.c_[p @ h1, p @ up]), (lambda p: np.c_[p @ h2, p @ up])
    horizontal = lambda s: s["orient"] in ("up", "down")  # noqa: E731
    views = [("top-down: horizontal surfaces and anchors (ceiling outlined)", top, True),
             ("top-down: vertical and slanted surfaces and anchors", top, False),
             ("side: h1 right, up up", side1, None), ("side: h2 right, up up", side2, None)]
    fig, axes = plt.subplots(2, 2, figsize=(20, 16))
    for ax, (title, proj, want) in zip(axes.flat, views):
        q = proj(cloud)
        ax.scatter(q[:, 0], q[:, 1], s=0.3, c="#d0d0d0", linewidths=0)
        for s in sorted(surfaces, key=lambda s: s["height"]):
            if want is not None and horizontal(s) != want:
                continue
            colour = LABEL_COLOURS[s["label"]]
            hull = proj(s["centre"] + s["hull"][:, :1] * s["e1"] + s["hull"][:, 1:] * s["e2"])
            if want and s["label"] == "ceiling":
                ax.fill(*hull.T, facecolor="none", edgecolor=colour, linewidth=2, linestyle="--")
            else:
                ax.fill(*hull.T, color=colour, alpha=0.45 if want is not None else 0.25, linewidth=1.5, edgecolor=colour)
            if s["area"] >= 0.5 and want is not None:
                ax.annotate(f"{s['label']} {s['area']:.1f}", proj(s["centre"][None])[0], fontsize=7, ha="center")
        if len(moved):
            m = proj(moved)
            ax.scatter(m[:, 0], m[:, 1], s=2, c="#ff00ff", linewidths=0, alpha=0.5)
        for x in anchors:
            if want is not None and (x["a"]["alignment"] == "horizontal") != want:
                continue
            colour = "#1a9c1a" if x["on"] is not None else "#d62020"
            ax.fill(*proj(x["poly"]).T, facecolor="none", edgecolor=colour, linewidth=1.0)
        for b in boxes if want else []:
            ax.fill(*proj(b["corners"]).T, facecolor="none", edgecolor="black", linewidth=1, linestyle=":")
            ax.annotate(b["label"], proj(b["corners"][:1])[0], fontsize=6)
        ax.set_aspect("equal")
        ax.set_title(title)
        ax.grid(alpha=0.3)
    handles = [matplotlib.patches.Patch(color=c, alpha=0.5, label=f"surface: {k}") for k, c in LABEL_COLOURS.items()]
    handles += [matplotlib.lines.Line2D([], [], color="#1a9c1a", label="anchor ON a surface"),
                matplotlib.lines.Line2D([], [], color="#d62020", label="anchor on none"),
                matplotlib.lines.Line2D([], [], color="#ff00ff", marker=".", linestyle="", label="moving depth"),
                matplotlib.lines.Line2D([], [], color="black", linestyle=":", label="annotated box top")]
    fig.legend(handles=handles, loc="lower center", ncol=10)
    fig.suptitle(f"{capture}: reference surfaces (fused depth at ARKit's poses, label and m²) and the replay's "
                 f"final anchors (metres, reference world)")
    fig.tight_layout(rect=(0, 0.03, 1, 0.97))
    fig.savefig(path, dpi=80)
    plt.close(fig)


# ---------------------------------------------------------------------------------------- ARKitScenes boxes
def box_tops(capture, info, surfaces, anchors):
    """Annotated boxes whose top is level and 0.4-1.2 m over the reference floor (tables, counters).

    The annotation's world is ARKitScenes' z-up world, which `arsim import` keeps as the reference
    world (it states gravity (0, 0, -1) and converts nothing), so the boxes need no transform. Per box:
    the reference surface covering most of its top (an upward surface within 5 cm of the top's height;
    share of the top inside its outline) and the anchors lying on the top (horizontal, centre over the
    top, within 5 cm of its height)."""
    path = f"../shared/datasets/{capture}/{capture.split('-')[-1]}_3dod_annotation.json"
    if not os.path.exists(path) or info["floor"] is None:
        return []
    up, rows = info["up"], []
    for b in json.load(open(path))["data"]:
        obb = b["segments"]["obbAligned"]
        axes = np.array(obb["normalizedAxes"]).reshape(3, 3)  # rows: the box's axes in the world
        lengths, c = np.array(obb["axesLengths"]), np.array(obb["centroid"])
        k = int(np.argmax(np.abs(axes @ up)))
        top = c @ up + lengths[k] / 2 - info["floor"]
        if abs(axes[k] @ up) < 0.95 or not 0.4 <= top <= 1.2:
            continue
        i, j = [a for a in range(3) if a != k]
        centre_top = c + axes[k] * np.sign(axes[k] @ up) * lengths[k] / 2
        su, sv = np.meshgrid(np.linspace(-0.45, 0.45, 10), np.linspace(-0.45, 0.45, 10))
        samples = centre_top + su.reshape(-1, 1) * axes[i] * lengths[i] + sv.reshape(-1, 1) * axes[j] * lengths[j]
        best = ("-", 0.0)
        for srf in surfaces:
            if srf["orient"] == "up" and abs(centre_top @ srf["normal"] - srf["offset"]) <= 0.05:
                share = inside(srf, samples, int(np.ceil(ON_DIST / CELL))).mean()
                best = max(best, (srf["label"], share), key=lambda x: x[1])

        def over_top(p):
            d = p - centre_top
            return abs(d @ axes[i]) <= lengths[i] / 2 + 0.05 and abs(d @ axes[j]) <= lengths[j] / 2 + 0.05 and abs(d @ up) <= 0.05
        there = [x for x in anchors if x["a"]["alignment"] == "horizontal" and over_top(x["centre"])]
        corners = [centre_top + (x * axes[i] * lengths[i] + y * axes[j] * lengths[j]) / 2
                   for x, y in ((-1, -1), (1, -1), (1, 1), (-1, 1))]
        rows.append({"label": b["label"], "top": top, "area": lengths[i] * lengths[j], "reference": best,
                     "corners": np.array(corners),
                     "anchors": [x["a"]["classification"] for x in there],
                     "table_anchors": sum(x["a"]["classification"] == "table" for x in there)})
    return rows


# ---------------------------------------------------------------------------------------- main
def fmt(v, f="{:.2f}"):
    return "-" if v is None else f.format(v)


def table(rows, boxes, command, built):
    out = ["# Plane reference: real captures' final anchors against fused surfaces (issue 45)", "",
           f"Generated by `{command}` ({os.uname().machine}, {os.cpu_count()} cores, "
           f"{time.strftime('%Y-%m-%d', time.gmtime())}{f'; arsim built {built}' if built else ''}); do not edit.",
           "Reference: each capture's depth fused with ARKit's poses (TSDF 2 cm, confident depth <= 4 m), planar "
           "surfaces of >= 0.1 m² (RANSAC 2 cm, connected regions, coplanar neighbours merged; the floor and the "
           "ceiling one surface each), labelled from geometry. An anchor is ON a surface iff its normal is within "
           "5°, its centre and >= 80% of its outline within 5 cm of the surface's plane and inside its outline "
           "(dilated 5 cm). The session's world is aligned to the reference's by the rotation of the matched poses "
           "and the mean positions (alignment: position RMSE and the angle between the session's up and the "
           "reference's; in brackets the same for the SE(3) Umeyama fit of the positions alone, and how far its "
           "rotation lies from the poses'). Coverage: share of each of the 5 largest surfaces covered by the "
           "anchors ON it. Class per label: anchors ON surfaces of that label classified as it. Relaxed: anchors whose "
           "normal and centre alone would be ON (the outline may overrun the surface). Floor tilt: the "
           "reference floor's normal against the gravity the recording states. On fused depth: anchors on no "
           "surface of which >= 50% of the interior (a 5 cm grid) lies within 3 cm of a fused point facing within "
           "15° of the anchor's normal: anchors on geometry the capture saw that the segmentation made no matching "
           "surface of, or whose outline or normal misses the surface's; the rest float off any seen geometry. "
           "Pictures: out/planes/CAPTURE.png.",
           "",
           "| capture | align residual | anchors | on no surface (m²) | of those on fused depth | surfaces | found | anchors / found "
           "| 5 largest: label m² covered | ≥ 50% | normal median | offset median | alignment agrees "
           "| class agrees | class per label | relaxed: centre ON, class per label | floor tilt |",
           "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        cov = ", ".join(f"{lab} {a:.1f} {c:.0%}" for lab, a, c in r["coverage"])
        per = ", ".join(f"{k} {a}/{b}" for k, (a, b) in r["per_label"].items()) or "-"
        share = r["off"] / r["anchors"] if r["anchors"] else 0
        labels = ", ".join(f"{k} {v}" for k, v in sorted(r["labels"].items(), key=lambda kv: -kv[1]))
        a = r["residual"]
        out.append(f"| {r['capture']} | {a['pose'] * 100:.1f} cm, tilt {a['tilt']:.2f}° (Umeyama {a['umeyama'] * 100:.1f} cm, "
                   f"tilt {a['umeyama_tilt']:.2f}°, {a['differ']:.1f}° apart) | {r['anchors']} | {r['off']} ({share:.0%}, "
                   f"{r['off_area']:.1f}) | {r['on_depth']} | {r['surfaces']} ({labels}) | {r['found']} | {fmt(r['per_found'])} | {cov} | "
                   f"{sum(c >= 0.5 for _, _, c in r['coverage'])}/5 | {fmt(r['normal_med'], '{:.2f}°')} | "
                   f"{fmt(None if r['offset_med'] is None else r['offset_med'] * 100, '{:.1f} cm')} | "
                   f"{r['align'][0]}/{r['align'][1]} | {r['cls'][0]}/{r['cls'][1]} | {per} | {r['centre_on']}: "
                   f"{', '.join(f'{k} {a}/{b}' for k, (a, b) in r['centre_per_label'].items()) or '-'} | "
                   f"{fmt(r['floor_tilt'], '{:.2f}°')} |")
    for r in rows:
        if "moving" in r:
            out += ["", f"{r['capture']}: {r['off']} anchors on no surface, of which {r['moving'][0]} "
                        f"({r['moving'][1]:.1f} m²) have half their outline within 10 cm of moving depth "
                        "(voxels where the depth of several frames lies > 10 cm from the fused model: the dancer)."]
    for capture, bs in boxes.items():
        if bs:
            out += ["", f"{capture}: annotated boxes whose top is 0.4-1.2 m over the reference floor "
                    "(ARKitScenes' world = the imported reference world, z up)", "",
                    "| box | top over floor | top m² | reference surface covering the top | horizontal anchors on the top "
                    "| anchors classified table |", "|---|---|---|---|---|---|"]
            for b in bs:
                ref = f"{b['reference'][0]} ({b['reference'][1]:.0%} of the top)" if b["reference"][1] else "-"
                out.append(f"| {b['label']} | {b['top']:.2f} m | {b['area']:.2f} | {ref} "
                           f"| {', '.join(b['anchors']) or '-'} | {b['table_anchors']} |")
    return "\n".join(out) + "\n"


def main(args):
    options = {"--table": None, "--command": "Tools/plane-reference.sh", "--built": None}
    for name in options:
        if name in args:
            i = args.index(name)
            options[name] = args.pop(i + 1)
            args.pop(i)
    rows, boxes = [], {}
    for capture in args:
        info, surfaces, cloud, moved, poses = reference(capture)
        residual, matched, anchors = score(capture, info, surfaces, moved, poses)
        row = summarise(capture, info, surfaces, moved, residual, matched, anchors)
        rows.append(row)
        boxes[capture] = box_tops(capture, info, surfaces, anchors)
        draw(capture, info, surfaces, cloud, anchors, moved if "moving" in row else [], boxes[capture],
             f"{OUT}/{capture}.png")
        print(f"{capture}: alignment residual {residual['pose'] * 100:.1f} cm over {matched} poses, session up "
              f"{residual['tilt']:.2f}° from the reference's (positions alone, Umeyama: {residual['umeyama'] * 100:.1f} cm, "
              f"{residual['umeyama_tilt']:.2f}°, rotation {residual['differ']:.1f}° from the poses'); floor tilt against "
              f"gravity {fmt(info['floor_tilt'])}°; surfaces {len(surfaces)} {row['labels']}")
        print(f"  anchors {row['anchors']}, on no surface {row['off']} ({row['off_area']:.1f} m², on fused depth "
              f"{row['on_depth']}), found "
              f"{row['found']}, per found {fmt(row['per_found'])}, coverage "
              f"{[(lab, round(a, 1), round(c, 2)) for lab, a, c in row['coverage']]}")
        print(f"  normal median {fmt(row['normal_med'])}°, offset median "
              f"{fmt(None if row['offset_med'] is None else row['offset_med'] * 100, '{:.1f}')} cm, alignment "
              f"{row['align']}, class {row['cls']} {row['per_label']}; centre ON {row['centre_on']} {row['centre_per_label']}" + (f", moving {row['moving']}" if "moving" in row else ""))
        for b in boxes[capture]:
            print(f"  box {b['label']}: top {b['top']:.2f} m, {b['area']:.2f} m², reference {b['reference']}, "
                  f"anchors {b['anchors']}, table anchors {b['table_anchors']}")
    if options["--table"]:
        open(options["--table"], "w").write(table(rows, boxes, options["--command"], options["--built"]))


if __name__ == "__main__":
    main(sys.argv[1:])
