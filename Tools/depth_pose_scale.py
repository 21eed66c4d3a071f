#!/usr/bin/env python3
"""Whether a capture's depth and its reference poses agree in scale.

usage: Tools/python.sh Tools/depth_pose_scale.py RECORDING [--pairs N] [--seed S] [--trajectory FILE]

RECORDING is an ARSim-format folder (`arsim import` makes one from any phone export) whose reference
trajectory comes from the app (ARKit's poses). If the depth maps were `k` times the true distances
while the poses were true, frame i's depth carried into frame j by the poses would miss frame j's
depth by `(k - 1)` times the baseline between them; so for each pair of frames 0.3-1.5 m apart this
tries `k` from 0.90 to 1.10 and keeps the one whose warped depth (each point scaled by 1/k, moved by
the poses, scaled back) agrees best with the other frame's depth (median absolute difference over the
pixels both see, depth 0.3-4 m, confidence 2 where recorded). It prints the median and quartiles of
the best `k` over the pairs: a tracker that takes its scale from the depth cannot match the reference
poses better than that `k` allows. Results on stdout, progress on stderr."""
import argparse, json, os, sys
import numpy as np
import cv2


def load_poses(path):
    poses = {}
    for line in open(path):
        if line.startswith('#') or not line.strip():
            continue
        v = [float(x) for x in line.split()]
        q = np.array(v[4:8])
        x, y, z, w = q / np.linalg.norm(q)
        R = np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                      [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                      [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]])
        T = np.eye(4); T[:3, :3] = R; T[:3, 3] = v[1:4]
        poses[round(v[0], 6)] = T
    return poses


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('recording'); ap.add_argument('--pairs', type=int, default=60); ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--trajectory')
    a = ap.parse_args()
    s = json.load(open(os.path.join(a.recording, 'session.json')))
    cam = s.get('depthCamera', s['camera']); scale = s.get('depthScale', 0.001)
    frames = []
    for line in open(os.path.join(a.recording, s['frames'])):
        if line.startswith('#'): continue
        f = line.split()
        if len(f) >= 3: frames.append((round(float(f[0]), 6), f[2]))
    poses = load_poses(os.path.join(a.recording, s['groundTruth']['trajectory']))
    frames = [f for f in frames if f[0] in poses]
    conf_dir = os.path.join(a.recording, 'confidence')
    rng = np.random.default_rng(a.seed)
    fx, fy, cx, cy = cam['fx'], cam['fy'], cam['cx'], cam['cy']

    def depth(i):
        name = frames[i][1]
        path = os.path.join(a.recording, name)
        if path.endswith('.exr'):
            import OpenEXR  # float metres, one channel (the ARSim format's EXR depth)
            channels = OpenEXR.File(path).parts[0].channels
            d = np.asarray(next(iter(channels.values())).pixels, dtype=np.float64)
        else:
            d = cv2.imread(path, cv2.IMREAD_UNCHANGED)
            if d is None:
                sys.exit(f'{path}: not a depth image this tool reads (16-bit PNG or float EXR)')
            d = d.astype(np.float64) * scale
        c = os.path.join(conf_dir, os.path.basename(name).rsplit('.', 1)[0] + '.png')
        if os.path.exists(c):
            d[cv2.imread(c, cv2.IMREAD_UNCHANGED) < 2] = 0
        d[(d < 0.3) | (d > 4) | ~np.isfinite(d)] = 0
        return d

    ks = np.linspace(0.90, 1.10, 81)
    best = []
    tries = 0
    while len(best) < a.pairs and tries < 50 * a.pairs:
        tries += 1
        i, j = sorted(rng.choice(len(frames), 2, replace=False))
        Ti, Tj = poses[frames[i][0]], poses[frames[j][0]]
        baseline = np.linalg.norm(Ti[:3, 3] - Tj[:3, 3])
        if not 0.3 <= baseline <= 1.5: continue
        di, dj = depth(i), depth(j)
        h, w = di.shape
        v, u = np.nonzero(di)
        z = di[v, u]
        P = np.stack([(u - cx) / fx * z, (v - cy) / fy * z, z], 1)
        M = np.linalg.inv(Tj) @ Ti
        errs = []
        for k in ks:
            Q = (P / k) @ M[:3, :3].T + M[:3, 3]
            Q = Q * k
            ok = Q[:, 2] > 0.1
            uj = np.round(Q[ok, 0] / Q[ok, 2] * fx + cx).astype(int); vj = np.round(Q[ok, 1] / Q[ok, 2] * fy + cy).astype(int)
            inside = (uj >= 0) & (uj < w) & (vj >= 0) & (vj < h)
            zj = dj[vj[inside], uj[inside]]; zq = Q[ok][inside, 2]
            seen = zj > 0
            if seen.sum() < 0.2 * len(z):
                errs = None; break
            r = np.abs(zj[seen] - zq[seen])
            errs.append(np.median(r[r < 0.2]) if (r < 0.2).any() else 1.0)
        if errs is None: continue
        best.append(ks[int(np.argmin(errs))])
        print(f'pair {len(best)}: frames {i}-{j}, baseline {baseline:.2f} m, best k {best[-1]:.4f}', file=sys.stderr)
    if not best:
        print(f'{a.recording}: no pair of frames 0.3-1.5 m apart that overlap'); return 1
    q = np.percentile(best, [25, 50, 75])
    line = f'{os.path.basename(os.path.normpath(a.recording))} {q[1]:.4f} {q[0]:.4f} {q[2]:.4f} {len(best)}'
    if a.trajectory:
        line += f' {sim3_scale(load_poses(a.trajectory), poses):.4f}'
    print(line)


def sim3_scale(estimate, reference):
    """The scale of the Sim(3) (Umeyama) alignment of `estimate`'s positions onto `reference`'s, over
    the times both have (to the microsecond)."""
    times = sorted(set(estimate) & set(reference))
    A = np.array([estimate[t][:3, 3] for t in times]); B = np.array([reference[t][:3, 3] for t in times])
    A = A - A.mean(0); B = B - B.mean(0)
    U, S, Vt = np.linalg.svd(B.T @ A)
    D = np.eye(3); D[2, 2] = np.sign(np.linalg.det(U @ Vt))
    return float(np.trace(np.diag(S) @ D) / (A ** 2).sum())


if __name__ == '__main__':
    sys.exit(main())
