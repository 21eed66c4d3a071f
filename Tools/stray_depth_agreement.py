#!/usr/bin/env python3
"""How far a Stray Scanner session's LiDAR depth, ARKit's poses and the IMU agree (issue 12).

usage: Tools/python.sh Tools/stray_depth_agreement.py FOLDER [--peer ARSIM_TRAJECTORY]
  (with --peer: ARSIM_EXTRA_REQUIREMENTS=Tools/requirements-bench.txt for Open3D)

For a Stray folder (depth/, confidence/, odometry.csv, camera_matrix.csv, imu.csv) it prints
  1. reprojection: frame i's depth (confidence >= c) moved by ARKit's poses into frame i+10 and compared
     with that frame's depth (signed median, IQR, median |r|, over pairs every 60 frames), as a function
     of a time offset between depth and poses, the intrinsics' scaling convention (corner or centre),
     a depth scale and the confidence level;
     1b. the same residuals against a factor on the depth's focal length, over all pairs and over the
     pairs at the fastest turns (whether the depth's lateral geometry agrees with the rotation);
  2. depth against ARKit's translation: for pairs 30 and 60 frames apart, point-to-plane ICP on the two
     depth maps for the translation alone (rotation held at ARKit's, started at ARKit's pose), and the
     ratio of its translation to ARKit's along ARKit's (1 = same metric); then per camera axis (z,
     forward, read from the depth values alone: the depth's scale);
  3. the same ICP on all 6 degrees of freedom, 5 frames apart: its disagreement with ARKit's relative
     pose (mm, degrees), against the gyroscope's rotation integrated over the same frames;
  4. the accelerometer against ARKit: ARKit's positions differentiated twice and the recorded specific
     force, in the camera frame, after the best fixed device-to-camera rotation: the scale of the
     dynamic part (1 = ARKit's motion has the accelerometer's metric);
  5. with --peer, Open3D's depth-only odometry (tensor `rgbd_odometry_multi_scale`, PointToPlane,
     frame to keyframe with ARSim's keyframe rule) and an ARSim trajectory (`arsim eval FOLDER --mode
     depth --trajectory FILE`), both as ATE (SE(3) and Sim(3) Umeyama, RMSE) against ARKit's poses.
     5b. the accelerometer's metric over each trajectory's (no reference used), against the filter width;
  6. the flatness of the largest plane in single depth maps (no poses) with the depth read as z or as
     the range along the ray, and under a radial distortion k1 of the colour lens.
Only numpy and OpenCV (Open3D for --peer); reads the folder, writes nothing."""
import sys

import cv2
import numpy as np


# MARK: Small rotation helpers (x, y, z, w quaternions; rotation vectors in radians)

def quat_matrix(q):
    x, y, z, w = q / np.linalg.norm(q)
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                     [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                     [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]])


def exp_so3(w):
    theta = np.linalg.norm(w)
    if theta < 1e-12:
        return np.eye(3)
    k = w / theta
    K = np.array([[0, -k[2], k[1]], [k[2], 0, -k[0]], [-k[1], k[0], 0]])
    return np.eye(3) + np.sin(theta) * K + (1 - np.cos(theta)) * K @ K


def angle_deg(R):
    return np.degrees(np.arccos(np.clip((np.trace(R) - 1) / 2, -1, 1)))


class Session:
    def __init__(self, folder):
        self.folder = folder
        odometry = np.loadtxt(folder + "/odometry.csv", delimiter=",", skiprows=1)
        self.t = odometry[:, 0]
        self.frames = odometry[:, 1].astype(int)
        self.p = odometry[:, 2:5]
        self.R = np.array([quat_matrix(q) for q in odometry[:, 5:9]])
        self.K = np.loadtxt(folder + "/camera_matrix.csv", delimiter=",")
        self.imu = np.loadtxt(folder + "/imu.csv", delimiter=",", skiprows=1)
        shape = self.depth(0, 0).shape
        self.h, self.w = shape
        self.u, self.v = np.meshgrid(np.arange(self.w), np.arange(self.h))

    def depth(self, i, confidence=2, scale=1.0):
        d = cv2.imread(f"{self.folder}/depth/{self.frames[i]:06d}.png", cv2.IMREAD_UNCHANGED).astype(float) / 1000
        c = cv2.imread(f"{self.folder}/confidence/{self.frames[i]:06d}.png", cv2.IMREAD_UNCHANGED)
        d[(d == 0) | (c < confidence)] = np.nan
        return d * scale

    def k(self, convention="corner"):
        """The colour intrinsics scaled to the depth size (ARSim's CameraIntrinsics.scaled: corner).
        The colour size is the depth size times the multiple of 0.5 nearest 2 (cx + 0.5) / width, the
        Stray reader's rule without a video (7.5: 1920x1440)."""
        ratio = max(0.5, round((self.K[0, 2] + 0.5) * 2 / self.w * 2) / 2)
        sx = sy = 1 / ratio
        k = self.K.copy()
        k[0, 0] *= sx
        k[1, 1] *= sy
        if convention == "corner":
            k[0, 2], k[1, 2] = (self.K[0, 2] + 0.5) * sx - 0.5, (self.K[1, 2] + 0.5) * sy - 0.5
        else:
            k[0, 2], k[1, 2] = self.K[0, 2] * sx, self.K[1, 2] * sy
        return k

    def pose(self, time):
        """ARKit's optical-frame pose at `time` (positions linear, rotations by the nearer frame's
        rotation turned by the fraction of the step: exact enough for sub-frame offsets)."""
        time = np.clip(time, self.t[0], self.t[-1])
        i = min(int(np.searchsorted(self.t, time, side="right")) - 1, len(self.t) - 2)
        f = (time - self.t[i]) / (self.t[i + 1] - self.t[i])
        step = self.R[i].T @ self.R[i + 1]
        axis = np.array([step[2, 1] - step[1, 2], step[0, 2] - step[2, 0], step[1, 0] - step[0, 1]])
        theta = np.radians(angle_deg(step))
        w = axis / (2 * np.sin(theta)) * theta if theta > 1e-9 else np.zeros(3)
        T = np.eye(4)
        T[:3, :3] = self.R[i] @ exp_so3(f * w)
        T[:3, 3] = (1 - f) * self.p[i] + f * self.p[i + 1]
        return T

    def points(self, d, k, k1=0.0, reading="z"):
        """Depth pixels back-projected with K; `k1` undistorts the pixels by one radial term (x_u = x_d /
        (1 + k1 r_d^2), negative for a barrel lens) and `reading` says whether d is z or the range."""
        x, y = (self.u - k[0, 2]) / k[0, 0], (self.v - k[1, 2]) / k[1, 1]
        radial = 1 + k1 * (x * x + y * y)
        x, y = x / radial, y / radial
        z = d / np.sqrt(1 + x * x + y * y) if reading == "range" else d
        return np.stack([x * z, y * z, z], -1)

    @staticmethod
    def project(Y, k, k1=0.0):
        """Pixels (rounded) of camera points Y, through the radial term `points` undoes (x_d = x_u (1 +
        k1 r_d^2), solved by fixed-point iteration)."""
        x, y = Y[:, 0] / Y[:, 2], Y[:, 1] / Y[:, 2]
        xd, yd = x, y
        for _ in range(10 if k1 else 0):
            radial = 1 + k1 * (xd * xd + yd * yd)
            xd, yd = x * radial, y * radial
        return np.round(k[0, 0] * xd + k[0, 2]).astype(int), np.round(k[1, 1] * yd + k[1, 2]).astype(int)


# MARK: 1. Reprojection residuals

def residual(s, i, j, dt=0.0, convention="corner", confidence=2, scale=1.0, focal=1.0, k1=0.0):
    k = s.k(convention)
    k[0, 0] *= focal
    k[1, 1] *= focal
    di, dj = s.depth(i, confidence, scale), s.depth(j, confidence, scale)
    X = s.points(di, k, k1)[np.isfinite(di)]
    T = np.linalg.inv(s.pose(s.t[j] + dt)) @ s.pose(s.t[i] + dt)
    Y = X @ T[:3, :3].T + T[:3, 3]
    u, v = s.project(Y, k, k1)
    ok = (Y[:, 2] > 0) & (u >= 0) & (u < s.w) & (v >= 0) & (v < s.h)
    r = dj[v[ok], u[ok]] - Y[ok, 2]
    r = r[np.isfinite(r) & (np.abs(r) < 0.1)]
    return np.median(r), np.subtract(*np.percentile(r, [75, 25])), np.median(np.abs(r))


def reprojection_table(s):
    pairs = [(i, i + 10) for i in range(0, len(s.t) - 12, 60)]

    def row(label, **options):
        m = np.median([residual(s, i, j, **options) for i, j in pairs], axis=0) * 1000
        print(f"  {label:<24} median {m[0]:+6.2f} mm  IQR {m[1]:5.2f} mm  median|r| {m[2]:5.2f} mm")

    print("1. frame i's depth moved by ARKit's poses into frame i+10 (confidence 2 unless said)")
    for dt in [-0.033, -0.017, -0.008, 0, 0.008, 0.017, 0.033]:
        row(f"time offset {dt * 1000:+.0f} ms", dt=dt)
    for convention in ["corner", "centre"]:
        row(f"intrinsics {convention}", convention=convention)
    for scale in [0.97, 0.98, 0.99, 1.0, 1.01]:
        row(f"depth scale {scale}", scale=scale)
    for confidence in [0, 1, 2]:
        row(f"confidence >= {confidence}", confidence=confidence)
    # Pairs at the fastest turns (10 frames turning more than 4 degrees): there the depth maps' lateral
    # geometry, which the focal length sets, decides whether they agree with the rotation.
    turns = [(i, i + 10) for i in range(0, len(s.t) - 12, 10) if angle_deg(relative(s, i, i + 10)[:3, :3]) > 4]
    print(f"1b. the same against the depth's focal length (scaled colour K times this), all pairs and {len(turns)} "
          "pairs turning > 4 degrees")
    for focal in [0.94, 0.96, 0.98, 1.0, 1.02]:
        a = np.median([residual(s, i, j, focal=focal) for i, j in pairs], axis=0) * 1000
        b = np.median([residual(s, i, j, focal=focal) for i, j in turns], axis=0) * 1000
        print(f"  focal x {focal:<5}  all: median {a[0]:+6.2f} mm median|r| {a[2]:5.2f} mm;  turning: median "
              f"{b[0]:+6.2f} mm median|r| {b[2]:5.2f} mm")
    # A barrel lens (k1 < 0) shortens the effective focal length towards the edges only.
    for k1 in [-0.15, -0.1, -0.05]:
        a = np.median([residual(s, i, j, k1=k1) for i, j in pairs], axis=0) * 1000
        b = np.median([residual(s, i, j, k1=k1) for i, j in turns], axis=0) * 1000
        print(f"  radial k1 {k1:+.2f}  all: median {a[0]:+6.2f} mm median|r| {a[2]:5.2f} mm;  turning: median "
              f"{b[0]:+6.2f} mm median|r| {b[2]:5.2f} mm")


# MARK: 6. Flatness of the largest plane in single depth maps (no poses)

def flatness_table(s, every=15, seed=1):
    """The largest plane of every `every`-th depth map (RANSAC, 2 cm, under the plain model: depth = z,
    no distortion), kept when it has 8000 pixels over 150 x 100; its pixels back-projected under each
    reading model and fitted by least squares. The model that reads the depth right makes planes
    flatter, without ARKit's poses. (The pixels are chosen under the plain model, which favours it.)"""
    rng = np.random.default_rng(seed)
    k = s.k()
    models = [("z", 0.0), ("range", 0.0)] + [("z", k1) for k1 in (-0.2, -0.15, -0.1, -0.05, 0.05)]
    rms = {m: [] for m in models}
    for i in range(0, len(s.t), every):
        d = s.depth(i)
        valid = np.isfinite(d)
        Q, pixels = s.points(d, k)[valid], np.argwhere(valid)
        if len(Q) < 8000:
            continue
        best = np.zeros(len(Q), bool)
        for _ in range(300):
            a = Q[rng.choice(len(Q), 3, replace=False)]
            n = np.cross(a[1] - a[0], a[2] - a[0])
            if np.linalg.norm(n) < 1e-9:
                continue
            inliers = np.abs((Q - a[0]) @ (n / np.linalg.norm(n))) < 0.02
            if inliers.sum() > best.sum():
                best = inliers
        on = pixels[best]
        if len(on) < 8000 or np.ptp(on[:, 1]) < 150 or np.ptp(on[:, 0]) < 100:
            continue
        for reading, k1 in models:
            P = s.points(d, k, k1, reading)[on[:, 0], on[:, 1]]
            P = P - P.mean(0)
            rms[(reading, k1)].append(np.linalg.svd(P, compute_uv=False)[2] / np.sqrt(len(P)))
    plain = np.array(rms[models[0]])
    print(f"6. flatness of the largest plane in {len(plain)} single depth maps (no poses), plane rms")
    for reading, k1 in models:
        r = np.array(rms[(reading, k1)])
        print(f"  depth as {reading:<5} radial k1 {k1:+.2f}: median {np.median(r) * 1000:6.2f} mm, mean "
              f"{r.mean() * 1000:6.2f} mm, flatter than plain in {np.mean(r < plain) * 100:3.0f}% of maps")


# MARK: 2, 3. Point-to-plane ICP on two depth maps

def normals(X, r=2):
    n = np.full_like(X, np.nan)
    c = np.cross(X[r:-r, 2 * r:] - X[r:-r, :-2 * r], X[2 * r:, r:-r] - X[:-2 * r, r:-r])
    n[r:-r, r:-r] = c / np.linalg.norm(c, axis=-1, keepdims=True)
    return -n * np.sign(np.sum(n * X, -1, keepdims=True))


def icp(s, d_ref, d_cur, T, rotation=True, iterations=30, max_distance=0.05, huber=0.01):
    """current-from-reference by projective point-to-plane ICP (Huber), like CVision's at one level."""
    k = s.k()
    P = s.points(d_ref, k)
    N = normals(P)
    C = s.points(d_cur, k)
    valid = np.isfinite(P[..., 2]) & np.isfinite(N[..., 0])
    p, n = P[valid], N[valid]
    for _ in range(iterations):
        q = p @ T[:3, :3].T + T[:3, 3]
        m = n @ T[:3, :3].T
        u = np.round(k[0, 0] * q[:, 0] / q[:, 2] + k[0, 2]).astype(int)
        v = np.round(k[1, 1] * q[:, 1] / q[:, 2] + k[1, 2]).astype(int)
        ok = (q[:, 2] > 0) & (u >= 0) & (u < s.w) & (v >= 0) & (v < s.h)
        c = np.full_like(q, np.nan)
        c[ok] = C[v[ok], u[ok]]
        e = c - q
        ok &= np.isfinite(e[:, 0]) & (np.sum(e * e, 1) < max_distance ** 2)
        if ok.sum() < 100:
            return None
        r = np.sum(m * e, 1)[ok]
        J = np.hstack([np.cross(m[ok], c[ok]), -m[ok]]) if rotation else -m[ok]
        w = np.minimum(1.0, huber / np.maximum(np.abs(r), 1e-12))
        H = (J * w[:, None]).T @ J
        xi = np.linalg.solve(H + 1e-6 * np.trace(H) * np.eye(len(H)), -(J * w[:, None]).T @ r)
        T = T.copy()
        if rotation:
            dR = exp_so3(xi[:3])
            T[:3, :3], T[:3, 3] = dR @ T[:3, :3], dR @ T[:3, 3] + xi[3:]
        else:
            T[:3, 3] += xi
        if np.linalg.norm(xi) < 1e-5:
            break
    return T


def relative(s, i, j):
    return np.linalg.inv(s.pose(s.t[j])) @ s.pose(s.t[i])  # current (j) from reference (i)


def translation_pairs(s, gap, every, min_motion):
    """ARKit's and the depth ICP's translations (rotation held at ARKit's) for pairs `gap` frames apart,
    one every `every` frames, where ARKit moved at least `min_motion` metres."""
    pairs = []
    for i in range(20, len(s.t) - gap - 1, every):
        G = relative(s, i, i + gap)
        if np.linalg.norm(G[:3, 3]) < min_motion:
            continue
        T = icp(s, s.depth(i), s.depth(i + gap), G, rotation=False)
        if T is not None:
            pairs.append((G[:3, 3], T[:3, 3]))
    return pairs


def scale_table(s):
    print("2. depth ICP translation (rotation held at ARKit's) over ARKit's, along ARKit's")
    for gap in [30, 60]:
        ratios = [t @ g / (g @ g) for g, t in translation_pairs(s, gap, 30, 0.1)]
        iqr = np.subtract(*np.percentile(ratios, [75, 25]))
        print(f"  {gap} frames apart: ratio median {np.median(ratios):.4f}, IQR {iqr:.4f}, {len(ratios)} pairs")
    # Per camera axis (least squares over the pairs): along z (forward) the motion is read from the depth
    # values alone, so its ratio is the depth's scale; across (x, y) it also depends on the focal length
    # and on the rotation, which is held at ARKit's.
    pairs = translation_pairs(s, 20, 15, 0.06) + translation_pairs(s, 40, 15, 0.06)
    arkit, depth = np.array([g for g, _ in pairs]), np.array([t for _, t in pairs])
    ratio = np.sum(arkit * depth, 0) / np.sum(arkit * arkit, 0)
    rms = np.sqrt(np.mean(arkit * arkit, 0)) * 1000
    print(f"  per axis, {len(arkit)} pairs 20 and 40 frames apart: x {ratio[0]:.4f}, y {ratio[1]:.4f}, z (depth's "
          f"scale) {ratio[2]:.4f} (ARKit's motion rms {rms[0]:.0f}, {rms[1]:.0f}, {rms[2]:.0f} mm)")


def gyro_rotation(s, t0, t1, camera_from_device):
    """Rotation from the optical frame at t1 to the one at t0, the gyroscope's rates integrated."""
    times, rates = s.imu[:, 0], s.imu[:, 4:7] @ camera_from_device.T
    R = np.eye(3)
    at = t0
    for k in np.nonzero((times > t0) & (times < t1 + 0.02))[0]:
        end = min(times[k], t1)
        R = R @ exp_so3(rates[k] * (end - at))
        at = end
        if end >= t1:
            break
    return R


def six_dof_table(s, camera_from_device):
    print("3. 5 frames apart: depth ICP (6 DOF, from ARKit's pose) and the gyroscope against ARKit")
    icp_errors, gyro_errors = [], []
    for i in range(20, len(s.t) - 6, 45):
        G = relative(s, i, i + 5)
        T = icp(s, s.depth(i), s.depth(i + 5), G)
        if T is not None:
            D = np.linalg.inv(G) @ T
            icp_errors.append((np.linalg.norm(D[:3, 3]) * 1000, angle_deg(D[:3, :3])))
        arkit = s.R[i].T @ s.R[i + 5]
        gyro_errors.append(angle_deg(gyro_rotation(s, s.t[i], s.t[i + 5], camera_from_device).T @ arkit))
    e = np.median(icp_errors, axis=0)
    print(f"  ICP: median {e[0]:.1f} mm, {e[1]:.3f} deg; gyroscope: median {np.median(gyro_errors):.3f} deg")


# MARK: 4. Accelerometer against ARKit

def smooth(x, n=15):
    kernel = np.ones(n) / n
    return np.stack([np.convolve(x[:, c], kernel, mode="same") for c in range(x.shape[1])], 1)


def accelerometer_table(s):
    # Both sides through the same filter (two passes of a 0.25 s box) after the differences.
    dt = np.median(np.diff(s.t))
    acceleration = np.gradient(np.gradient(s.p, dt, axis=0), dt, axis=0)
    gravity = np.array([0, -9.80665, 0])  # ARKit's world is y up
    force = smooth(smooth(np.einsum("nji,nj->ni", s.R, acceleration - gravity)))  # optical frame
    measured = smooth(smooth(np.stack([np.interp(s.t, s.imu[:, 0], s.imu[:, c]) for c in (1, 2, 3)], 1)))
    keep = (s.t > s.t[0] + 1) & (s.t < s.t[-1] - 0.5)
    print("4. accelerometer against ARKit's positions differentiated twice (camera frame)")
    best = None
    for sign in (1, -1):
        A, B = sign * measured[keep], force[keep]
        U, _, Vt = np.linalg.svd(A.T @ B)
        D = np.diag([1, 1, np.sign(np.linalg.det(Vt.T @ U.T))])
        R = Vt.T @ D @ U.T
        fit = np.median(np.linalg.norm(A @ R.T - B, axis=1))
        if best is None or fit < best[0]:
            best = (fit, sign, R, A @ R.T, B)
    fit, sign, R, A, B = best
    g_camera = smooth(smooth(np.einsum("nji,j->ni", s.R, -gravity)))[keep]
    dyn_imu, dyn_arkit = A - g_camera, B - g_camera
    scale = np.sum(dyn_imu * dyn_arkit) / np.sum(dyn_arkit * dyn_arkit)
    print(f"  sign {sign:+d} (CoreMotion reads -specific force when -1), fit residual median {fit:.3f} m/s^2")
    print(f"  camera-from-device rotation:\n{np.round(R, 3)}")
    print(f"  dynamic acceleration, accelerometer over ARKit: {scale:.4f} "
          f"(rms {np.sqrt((dyn_imu ** 2).sum(1).mean()):.3f} and {np.sqrt((dyn_arkit ** 2).sum(1).mean()):.3f} m/s^2)")
    return np.round(R)


# MARK: 5. Peer: Open3D's depth-only odometry, and an ARSim trajectory

def ate(s, times, positions):
    idx = [int(np.argmin(np.abs(s.t - x))) for x in times]
    g = np.array([s.pose(s.t[i])[:3, 3] for i in idx])
    out = []
    for with_scale in (False, True):
        me, mg = positions.mean(0), g.mean(0)
        X, Y = positions - me, g - mg
        U, S, Vt = np.linalg.svd(Y.T @ X / len(X))
        D = np.diag([1, 1, np.sign(np.linalg.det(U @ Vt))])
        scale = np.trace(np.diag(S) @ D) / (X ** 2).sum(1).mean() if with_scale else 1.0
        aligned = scale * X @ (U @ D @ Vt).T + mg
        out += [np.sqrt(np.mean(np.sum((aligned - g) ** 2, 1))), scale]
    return out


def accelerometer_scale(s, times, positions, rotations, camera_from_device, box):
    """The accelerometer's metric over a trajectory's (lam) and gravity g (3, in its world), by least squares
    over m_i = lam R_i^T a_i - R_i^T g: m the recorded specific force in the camera frame, a the positions
    differentiated twice on a regular grid, both through two passes of a `box`-sample filter. Needs no
    reference: 1 / lam would be a trajectory's scale correction if the estimate were well conditioned."""
    dt = np.median(np.diff(times))
    grid = np.arange(times[0], times[-1], dt)
    p = np.stack([np.interp(grid, times, positions[:, c]) for c in range(3)], 1)
    R = rotations[np.clip(np.searchsorted(times, grid), 0, len(times) - 1)]
    a = smooth(smooth(np.gradient(np.gradient(p, dt, axis=0), dt, axis=0), box), box)
    imu = np.stack([np.interp(grid, s.imu[:, 0], s.imu[:, c]) for c in (1, 2, 3)], 1)
    m = smooth(smooth(-imu @ camera_from_device.T, box), box)  # CoreMotion reads -specific force
    keep = (grid > grid[0] + 1) & (grid < grid[-1] - 0.5)
    Rt = np.transpose(R[keep], (0, 2, 1))
    J = np.concatenate([np.einsum("nij,nj->ni", Rt, a[keep])[..., None], -Rt], 2).reshape(-1, 4)
    x = np.linalg.lstsq(J, m[keep].reshape(-1), rcond=None)[0]
    return x[0], np.sqrt(np.mean((J @ x - m[keep].reshape(-1)) ** 2))


def peer(s, arsim_trajectory):
    import open3d as o3d
    core, odometry = o3d.core, o3d.t.pipelines.odometry
    k = core.Tensor(s.k(), core.float64)
    blank = o3d.t.geometry.Image(core.Tensor(np.zeros((s.h, s.w, 3), np.float32)))

    def rgbd(i):
        d = s.depth(i)
        d[~np.isfinite(d)] = 0
        return o3d.t.geometry.RGBDImage(blank, o3d.t.geometry.Image(core.Tensor((d * 1000).astype(np.uint16))))

    criteria = [odometry.OdometryConvergenceCriteria(n) for n in (6, 10, 15)]
    current = key_pose = s.pose(s.t[0])
    key = rgbd(0)
    positions = [current[:3, 3]]
    failures = 0
    for i in range(1, len(s.t)):
        frame = rgbd(i)
        guess = np.linalg.inv(key_pose) @ current
        try:  # depth outliers beyond 7 cm, Huber 1 cm (the intensity term has no gradient here)
            result = odometry.rgbd_odometry_multi_scale(
                frame, key, k, core.Tensor(guess), 1000.0, 5.0, criteria, odometry.Method.PointToPlane,
                odometry.OdometryLossParams(0.07, 0.01, 0.2))
            step, fitness = result.transformation.numpy(), result.fitness
        except RuntimeError:  # a singular system: the pose is held
            failures += 1
            step, fitness = guess, 0.0
        current = key_pose @ step
        positions.append(current[:3, 3])
        if np.linalg.norm(step[:3, 3]) > 0.04 or angle_deg(step[:3, :3]) > 4 or fitness < 0.5:
            key, key_pose = frame, current
    print("5. ATE against ARKit (RMSE; SE(3), then Sim(3) with its scale)")
    e = ate(s, s.t, np.array(positions))
    print(f"  Open3D PointToPlane, frame to keyframe: {e[0] * 100:.2f} cm, {e[2] * 100:.2f} cm at scale {e[3]:.4f} "
          f"({failures} frames failed)")
    rows = np.loadtxt(arsim_trajectory)
    e = ate(s, rows[:, 0], rows[:, 1:4])
    print(f"  ARSim ({arsim_trajectory}): {e[0] * 100:.2f} cm, {e[2] * 100:.2f} cm at scale {e[3]:.4f}")
    print("5b. accelerometer over the trajectory (lam, no reference), by the width of the filter")
    camera_from_device = np.array([[0.0, -1, 0], [-1, 0, 0], [0, 0, -1]])  # Stray: device to optical axes
    arsim_rotations = np.array([quat_matrix(q) for q in rows[:, 4:8]])
    for box in (15, 30, 60, 90):
        arkit = accelerometer_scale(s, s.t, s.p, s.R, camera_from_device, box)
        ours = accelerometer_scale(s, rows[:, 0], rows[:, 1:4], arsim_rotations, camera_from_device, box)
        print(f"  box {box:>2} samples: ARKit lam {arkit[0]:.4f} (rms {arkit[1]:.3f} m/s^2), ARSim lam {ours[0]:.4f} "
              f"(rms {ours[1]:.3f} m/s^2)")


def main(argv):
    if len(argv) not in (2, 4) or (len(argv) == 4 and argv[2] != "--peer"):
        sys.exit(__doc__.split("\n\n")[1])
    s = Session(argv[1])
    print(f"{argv[1]}: {len(s.t)} frames over {s.t[-1] - s.t[0]:.2f} s, depth {s.w}x{s.h}, "
          f"path {np.sum(np.linalg.norm(np.diff(s.p, axis=0), axis=1)):.2f} m")
    reprojection_table(s)
    scale_table(s)
    camera_from_device = accelerometer_table(s)
    six_dof_table(s, camera_from_device)
    flatness_table(s)
    if len(argv) == 4:
        peer(s, argv[3])


if __name__ == "__main__":
    main(sys.argv)
