#!/usr/bin/env python3
"""A peer measurement of ARSim's scene reconstruction (issue 47) against Open3D's fusion of the same depth.

usage: Tools/python.sh Tools/mesh-reference.py [--table OUT.md] [--command TEXT] CAPTURE...
       (run through Tools/mesh-reference.sh, which imports and replays first)

Per CAPTURE it reads out/planes/import/CAPTURE (the capture as `arsim import` wrote it, shared with
Tools/plane-reference.sh: depth, confidence, ARKit's poses as the reference trajectory), and
out/mesh/replay/CAPTURE.ply, .events.jsonl, .traj.txt and .times (`arsim replay SRC --mesh --events
--trajectory`, and the seconds of that replay and of one without --mesh).

Reference: every frame's depth of confidence >= 1 (as the session fuses; every pixel when the capture
has no confidence), at most 4 m, fused with ARKit's pose in an Open3D ScalableTSDFVolume (2 cm voxels,
8 cm truncation), its triangle mesh extracted (cached in out/mesh/CAPTURE-open3d.npz until the import
is newer).

Alignment: the session's world is mapped into ARKit's by the rotation of the matched poses (chordal
mean of R_arkit R_session^T over poses whose timestamps agree within 5 ms) and the translation that
matches their mean positions, as Tools/plane_reference.py does.

Scores: accuracy, the median (and 90th percentile) distance of ARSim's vertices to Open3D's surface;
completeness, the share of Open3D's vertices within 5 cm of ARSim's surface; time, the replay with
--mesh over the replay without it (wall clock), and Open3D's fusion time; fusion alone, accuracy and
completeness against Open3D's fusion of the same depth at the session's own tracked poses (both in the
session world: what the fusion and meshing leave without the trajectory's error; not cached, it follows
the replay). Classification against the
session's own plane anchors (both in the session world, no alignment): a face is shared with a final
floor, wall, ceiling, table or seat anchor when its centre lies within 5 cm of the anchor's plane and
inside its boundary and its normal is within 25 degrees of the anchor's; agreement is the area of
shared faces whose class is the anchor's over the area shared. Progress on stderr, results
on stdout; --table writes them as Markdown.
"""
import os
import sys
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy as np  # noqa: E402
import open3d as o3d  # noqa: E402

import plane_reference as pr  # noqa: E402

OUT = "out/mesh"
IMPORT = "out/planes/import"
VOXEL, TRUNC, MAX_DEPTH, MIN_CONF, NEAR = 0.02, 0.08, 4.0, 1, 0.05
KEY = f"{VOXEL} {TRUNC} {MAX_DEPTH} {MIN_CONF} open3d {o3d.__version__}"


def log(*a):
    print(*a, file=sys.stderr, flush=True)


def read_ply(path):
    """Vertices (n, 3) and triangles (m, 3) of the ASCII PLY `arsim replay --mesh` writes, and the
    faces' classification."""
    with open(path) as f:
        counts = {}
        while True:
            line = f.readline().split()
            if line[:1] == ["element"]:
                counts[line[1]] = int(line[2])
            if line[:1] == ["end_header"]:
                break
        v = np.loadtxt(f, max_rows=counts["vertex"], ndmin=2) if counts["vertex"] else np.zeros((0, 6))
        faces = np.loadtxt(f, max_rows=counts["face"], dtype=np.int64, ndmin=2) if counts["face"] else np.zeros((0, 5), int)
    return v[:, :3], faces[:, 1:4], faces[:, 4]


def fuse(folder, session, cam, frames, pose_of):
    """Open3D's fusion of `frames` (those `pose_of` gives a pose for) and the seconds it took: vertices,
    triangles, seconds."""
    intr = o3d.camera.PinholeCameraIntrinsic(cam["width"], cam["height"], cam["fx"], cam["fy"], cam["cx"], cam["cy"])
    vol = o3d.pipelines.integration.ScalableTSDFVolume(
        voxel_length=VOXEL, sdf_trunc=TRUNC, color_type=o3d.pipelines.integration.TSDFVolumeColorType.NoColor)
    grey = o3d.geometry.Image(np.zeros((cam["height"], cam["width"], 3), np.uint8))
    start = time.monotonic()
    for i, (t, d, c, pose) in enumerate(frames):
        world_from_camera = pose_of(t, pose)
        if world_from_camera is None:
            continue
        depth = pr.load_depth(folder, session, d, c, MIN_CONF)
        rgbd = o3d.geometry.RGBDImage.create_from_color_and_depth(
            grey, o3d.geometry.Image(depth), depth_scale=1.0, depth_trunc=MAX_DEPTH, convert_rgb_to_intensity=False)
        vol.integrate(rgbd, intr, np.linalg.inv(world_from_camera))
        if i % 200 == 0:
            log(f"  fuse {i}/{len(frames)}")
    mesh = vol.extract_triangle_mesh()
    return np.asarray(mesh.vertices), np.asarray(mesh.triangles), time.monotonic() - start


def open3d_mesh(capture):
    folder = f"{IMPORT}/{capture}"
    path = f"{OUT}/{capture}-open3d.npz"
    if os.path.exists(path) and os.path.getmtime(path) > os.path.getmtime(f"{folder}/session.json"):
        z = np.load(path, allow_pickle=True)
        if str(z["key"]) == KEY:
            return z["vertices"], z["triangles"], float(z["seconds"]), z["poses"].item()
    log(f"{capture}: fusing {folder} with Open3D")
    session, cam, frames = pr.frames_of(folder)
    vertices, triangles, seconds = fuse(folder, session, cam, frames, lambda t, pose: pose)
    poses = {t: p for t, _, _, p in frames}
    np.savez(path, key=KEY, vertices=vertices, triangles=triangles, seconds=seconds,
             poses=np.array(poses, dtype=object))
    return vertices, triangles, seconds, poses


def fusion_alone(capture, ours_v, ours_t):
    """ARSim's mesh against Open3D's fusion of the same depth at the session's own tracked poses, both
    in the session world: the fusion and meshing alone, without the trajectory's error (accuracy
    median, completeness)."""
    folder = f"{IMPORT}/{capture}"
    session, cam, frames = pr.frames_of(folder)
    tracked = pr.read_tum(f"{OUT}/replay/{capture}.traj.txt")
    pairs = dict(pr.match([f[0] for f in frames], tracked.keys()))
    log(f"{capture}: fusing {folder} with Open3D at the session's poses")
    ref_v, ref_t, _ = fuse(folder, session, cam, frames, lambda t, _: tracked[pairs[t]] if t in pairs else None)
    return float(np.median(distances(ours_v, ref_v, ref_t))), float((distances(ref_v, ours_v, ours_t) <= NEAR).mean())


def alignment(capture, ref_poses):
    """R, t mapping the session world into ARKit's, and the RMS position residual of the matched poses."""
    session_poses = pr.read_tum(f"{OUT}/replay/{capture}.traj.txt")
    pairs = pr.match(session_poses.keys(), ref_poses.keys())
    src = np.array([session_poses[a][:3, 3] for a, _ in pairs])
    dst = np.array([ref_poses[b][:3, 3] for _, b in pairs])
    u, _, vt = np.linalg.svd(sum(ref_poses[b][:3, :3] @ session_poses[a][:3, :3].T for a, b in pairs))
    r = u @ np.diag([1, 1, np.sign(np.linalg.det(u @ vt))]) @ vt
    t = dst.mean(0) - r @ src.mean(0)
    return r, t, float(np.sqrt(((src @ r.T + t - dst) ** 2).sum(1).mean())), len(pairs)


def distances(points, vertices, triangles):
    """Distance from each point to the triangle mesh."""
    scene = o3d.t.geometry.RaycastingScene()
    scene.add_triangles(o3d.core.Tensor(vertices.astype(np.float32)), o3d.core.Tensor(triangles.astype(np.uint32)))
    return scene.compute_distance(o3d.core.Tensor(points.astype(np.float32))).numpy()


def classification_agreement(capture, vertices, triangles, classes):
    """(agreeing area, shared area) by the anchors' class, and overall."""
    from matplotlib.path import Path
    names = {"wall": 1, "floor": 2, "ceiling": 3, "table": 4, "seat": 5}
    a, b, c = (vertices[triangles[:, i]] for i in range(3))
    cross = np.cross(b - a, c - a)
    area = np.linalg.norm(cross, axis=1) / 2
    normal = cross / np.maximum(2 * area, 1e-12)[:, None]
    centre = (a + b + c) / 3
    result = {}
    for anchor in pr.final_anchors(f"{OUT}/replay/{capture}.events.jsonl"):
        label = anchor.get("classification")
        if label not in names:
            continue
        m = np.array(anchor["transform"]).reshape(4, 4).T
        q = (centre - m[:3, 3]) @ m[:3, :3]
        poly, _ = pr.outline(anchor)
        near = (np.abs(q[:, 1]) <= 0.05) & (np.abs(normal @ m[:3, 1]) >= np.cos(np.radians(25)))
        near[near] &= Path(poly).contains_points(q[near][:, [0, 2]])
        shared, agree = result.get(label, (0.0, 0.0))
        result[label] = (shared + area[near].sum(), agree + area[near & (classes == names[label])].sum())
    shared = sum(s for s, _ in result.values())
    agree = sum(g for _, g in result.values())
    return result, (agree / shared if shared > 0 else None), shared


def score(capture):
    ref_v, ref_t, o3d_seconds, ref_poses = open3d_mesh(capture)
    ours_v, ours_t, classes = read_ply(f"{OUT}/replay/{capture}.ply")
    r, t, residual, matched = alignment(capture, ref_poses)
    mapped = ours_v @ r.T + t
    accuracy = distances(mapped, ref_v, ref_t)
    completeness = distances(ref_v, mapped, ours_t) <= NEAR
    # Diagnostic: the same after a rigid point-to-plane ICP of the mesh onto Open3D's (what is left
    # is fusion and local drift; the pose alignment above also carries the trajectory's global error).
    source = o3d.geometry.PointCloud(o3d.utility.Vector3dVector(mapped))
    target = o3d.geometry.TriangleMesh(o3d.utility.Vector3dVector(ref_v), o3d.utility.Vector3iVector(ref_t))
    target.compute_vertex_normals()
    target_cloud = o3d.geometry.PointCloud(target.vertices)
    target_cloud.normals = target.vertex_normals
    icp = o3d.pipelines.registration.registration_icp(
        source, target_cloud, 0.1, np.eye(4), o3d.pipelines.registration.TransformationEstimationPointToPlane())
    refined = mapped @ icp.transformation[:3, :3].T + icp.transformation[:3, 3]
    icp_accuracy = distances(refined, ref_v, ref_t)
    icp_complete = distances(ref_v, refined, ours_t) <= NEAR
    alone_median, alone_complete = fusion_alone(capture, ours_v, ours_t)
    per_class, agreement, shared = classification_agreement(capture, ours_v, ours_t, classes)
    times = dict(line.split() for line in open(f"{OUT}/replay/{capture}.times"))
    with_mesh, without = float(times["mesh"]), float(times["plain"])
    labels = {k: int((classes == v).sum()) for k, v in
              (("none", 0), ("wall", 1), ("floor", 2), ("ceiling", 3), ("table", 4), ("seat", 5))}
    return {"capture": capture, "vertices": len(ours_v), "faces": len(ours_t), "ref_vertices": len(ref_v),
            "median": float(np.median(accuracy)), "p90": float(np.percentile(accuracy, 90)),
            "complete": float(completeness.mean()), "with": with_mesh, "without": without,
            "ratio": with_mesh / without, "open3d": o3d_seconds, "residual": residual, "matched": matched,
            "icp_median": float(np.median(icp_accuracy)), "icp_complete": float(icp_complete.mean()),
            "alone_median": alone_median, "alone_complete": alone_complete, "labels": labels, "agreement": agreement, "shared": shared,
            "per_class": {k: round(g / s, 2) if s > 0 else None for k, (s, g) in per_class.items()}}


def fmt(value):
    return "-" if value is None else f"{value * 100:.0f}%"


def table(rows, command):
    out = ["# Scene reconstruction against Open3D's fusion of the same depth", "",
           f"Measured with `{command}`: ARSim's `arsim replay --mesh` (4 cm voxels, confidence >= medium, "
           "at most 4 m, tracked poses) mapped onto ARKit's world, against Open3D's ScalableTSDFVolume of the "
           "same depth (2 cm voxels, 8 cm truncation, ARKit's poses). Accuracy: distance of ARSim's vertices to "
           "Open3D's surface. Completeness: share of Open3D's vertices within 5 cm of ARSim's surface. Time: "
           "wall clock of the replay with --mesh over the replay without it. After ICP: the same two after a rigid "
           "point-to-plane ICP of ARSim's mesh onto Open3D's (what the trajectory's global error leaves). "
           "Fusion alone: the same two against Open3D's fusion of the same depth at the session's own tracked "
           "poses, both in the session world (the fusion and meshing without the trajectory's error). "
           "Pose residual: RMS distance of the session's matched camera positions from ARKit's after the "
           "alignment. Classification = planes': area of mesh faces on the session's final floor, wall, "
           "ceiling, table and seat anchors (within 5 cm, 25 degrees, inside the boundary) classified as "
           "the anchor is.", "",
           "| capture | vertices | accuracy median (p90) | completeness | after ICP | fusion alone | "
           "replay with / without mesh | Open3D fusion | pose residual | classification = planes' |",
           "|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        out.append(f"| {r['capture']} | {r['vertices']} | {r['median'] * 100:.1f} cm ({r['p90'] * 100:.1f} cm) | "
                   f"{r['complete'] * 100:.0f}% | {r['icp_median'] * 100:.1f} cm, {r['icp_complete'] * 100:.0f}% | "
                   f"{r['alone_median'] * 100:.1f} cm, {r['alone_complete'] * 100:.0f}% | "
                   f"{r['with']:.1f} s / {r['without']:.1f} s ({r['ratio']:.2f}x) | "
                   f"{r['open3d']:.1f} s | {r['residual'] * 100:.1f} cm over {r['matched']} poses | "
                   f"{fmt(r['agreement'])} of {r['shared']:.1f} m² |")
    return "\n".join(out) + "\n"


def main(args):
    options = {"--table": None, "--command": "Tools/mesh-reference.sh"}
    for name in options:
        if name in args:
            i = args.index(name)
            options[name] = args.pop(i + 1)
            args.pop(i)
    rows = []
    for capture in args:
        r = score(capture)
        rows.append(r)
        print(f"{capture}: {r['vertices']} vertices, {r['faces']} faces; accuracy median {r['median'] * 100:.1f} cm "
              f"(p90 {r['p90'] * 100:.1f} cm), completeness {r['complete'] * 100:.0f}% of {r['ref_vertices']} "
              f"Open3D vertices within {NEAR * 100:.0f} cm; replay {r['with']:.1f} s with --mesh, {r['without']:.1f} s "
              f"without ({r['ratio']:.2f}x); Open3D fusion {r['open3d']:.1f} s; pose residual "
              f"{r['residual'] * 100:.1f} cm over {r['matched']} poses; after ICP: median {r['icp_median'] * 100:.1f} cm, "
              f"completeness {r['icp_complete'] * 100:.0f}%; fusion alone (Open3D at the session's poses): median "
              f"{r['alone_median'] * 100:.1f} cm, completeness {r['alone_complete'] * 100:.0f}%; faces by class {r['labels']}; classification agrees "
              f"with the planes on {fmt(r['agreement'])} of {r['shared']:.1f} m² shared {r['per_class']}")
    if options["--table"]:
        open(options["--table"], "w").write(table(rows, options["--command"]))


if __name__ == "__main__":
    main(sys.argv[1:])
