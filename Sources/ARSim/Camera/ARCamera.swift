import Foundation

/// The camera of one frame: its pose in the session's world, its pinhole model and how well it is
/// tracked, with ARKit's names and semantics (`ARCamera`).
///
/// ARKit's `ARCamera` is a class; here it is an immutable value type, which is `Sendable` and cheap to
/// copy. Frames:
/// - *World*: the session's world frame (metres, +y up against gravity; see ARCHITECTURE.md).
/// - *Camera*: ARKit's camera frame, fixed to the device whatever the interface orientation: +x right
///   and +y up in the sensor's native landscape orientation (`.landscapeRight`), looking along −z. In
///   portrait, +x points towards the bottom of the screen and +y to its right.
/// - *Image*: pixels of the captured image in its native landscape orientation, origin at its top-left
///   corner, x right, y down; ``imageResolution`` wide and high.
/// - *View*: points of a viewport (``Viewport``), origin at its top-left corner.
///
/// `Equatable` and `Hashable` by value: each frame's camera is made once, so two cameras are equal when
/// they are the same frame's camera (or the same pose, intrinsics and tracking state), where ARKit
/// compares the objects.
public struct ARCamera: Sendable, Hashable {
  /// The pose of the camera in world space: the camera-to-world transform (`worldFromCamera`) of ARKit's
  /// camera frame, metres. Its columns 0, 1, 2 are the camera's x, y, z axes in world coordinates and
  /// column 3 its position.
  public let transform: simd_float4x4

  /// The size of the captured image in pixels (width ≥ height for a landscape sensor), as the
  /// intrinsics describe it.
  public var imageResolution: CGSize {
    CGSize(width: CGFloat(cameraIntrinsics.width), height: CGFloat(cameraIntrinsics.height))
  }

  /// How well the camera is tracked; see ``TrackingState``.
  public let trackingState: TrackingState

  /// The camera pose in double precision, `worldFromCamera` (ARKit's camera frame to world).
  package let worldFromCamera: RigidTransform
  /// The inverse of ``worldFromCamera``: world to ARKit's camera frame.
  package let cameraFromWorld: RigidTransform
  /// The pinhole model in double precision: focal lengths and principal point in pixels of the
  /// captured image, and its size.
  package let cameraIntrinsics: CameraIntrinsics

  /// A camera from its pose in double precision, `worldFromCamera` (ARKit's camera frame, +y up, looking
  /// along −z, to world; metres), its pinhole intrinsics (pixels; the image size is the resolution) and
  /// its tracking state. For a pose of the optical frame, pass `worldFromOptical * opticalFromCamera`.
  package init(
    worldFromCamera: RigidTransform, intrinsics: CameraIntrinsics, trackingState: TrackingState
  ) {
    self.worldFromCamera = worldFromCamera
    self.cameraFromWorld = worldFromCamera.inverse
    self.transform = worldFromCamera.floatMatrix
    self.cameraIntrinsics = intrinsics
    self.trackingState = trackingState
  }

  /// ARSim: a camera from ARKit's values (ARKit itself offers no initializer), for tests and synthetic
  /// sessions.
  /// - Parameters:
  ///   - transform: camera-to-world in ARKit's camera frame (metres); the rotation block is
  ///     orthonormalised for the double-precision computations, `transform` itself is kept as given.
  ///   - intrinsics: ARKit's layout, columns `(fx, 0, 0)`, `(0, fy, 0)`, `(cx, cy, 1)` in pixels; skew
  ///     is ignored.
  ///   - imageResolution: the captured image's size in pixels (rounded to whole pixels).
  ///   - trackingState: the tracking state; `.normal` by default.
  public init(
    transform: simd_float4x4, intrinsics: simd_float3x3, imageResolution: CGSize,
    trackingState: TrackingState = .normal
  ) {
    let pinhole = CameraIntrinsics(
      fx: Double(intrinsics.columns.0.x), fy: Double(intrinsics.columns.1.y),
      cx: Double(intrinsics.columns.2.x), cy: Double(intrinsics.columns.2.y),
      width: Int(Double(imageResolution.width).rounded()),
      height: Int(Double(imageResolution.height).rounded()))
    let pose = RigidTransform(matrix: transform)
    self.worldFromCamera = pose
    self.cameraFromWorld = pose.inverse
    self.transform = transform
    self.cameraIntrinsics = pinhole
    self.trackingState = trackingState
  }

  /// The camera's intrinsic matrix `K` in ARKit's layout, pixels of the captured image: columns
  /// `(fx, 0, 0)`, `(0, fy, 0)`, `(cx, cy, 1)`, so `K · (x, y, z)ᵀ` of a point in the optical frame
  /// (x right, y down, z forward) divided by its last component is the pixel `(u, v)`, origin at the
  /// image's top-left corner.
  public var intrinsics: simd_float3x3 {
    let k = cameraIntrinsics
    return simd_float3x3(
      SIMD3(Float(k.fx), 0, 0), SIMD3(0, Float(k.fy), 0), SIMD3(Float(k.cx), Float(k.cy), 1))
  }

  /// The orientation of the camera as ARKit's Euler angles `(pitch, yaw, roll)` in radians, such that
  /// the rotation of ``transform`` is `Ry(yaw) · Rx(pitch) · Rz(roll)` (roll applied first, about the
  /// world's fixed axes). Pitch is in `[−π/2, π/2]`, yaw and roll in `(−π, π]`. Because the camera frame
  /// is landscape, a phone held upright in portrait has a roll of −π/2.
  public var eulerAngles: simd_float3 {
    let angles = worldFromCamera.matrix.eulerAngles
    return simd_float3(Float(angles.x), Float(angles.y), Float(angles.z))
  }

  /// The pose of the camera's optical frame (x right, y down, z forward) in world space,
  /// `worldFromCamera * cameraFromOptical`: what TUM trajectories record.
  package var worldFromOptical: RigidTransform { worldFromCamera * cameraFromOptical }
}

// MARK: - Tracking state

extension ARCamera {
  /// The quality of the camera's position tracking, as ARKit reports it (`ARCamera.TrackingState`).
  ///
  /// ``description`` gives the strings of the CLI's events file: `"normal"`, `"notAvailable"` and
  /// `"limited:<reason>"` (for example `"limited:initializing"`); `init?(_:)` parses them back.
  public enum TrackingState: Sendable, Hashable, CustomStringConvertible, LosslessStringConvertible {
    /// Tracking is not available: the session has not produced a pose (or has stopped).
    case notAvailable
    /// Tracking is available but its quality is questionable, for the given reason.
    case limited(Reason)
    /// Tracking works normally.
    case normal

    /// Why tracking is limited (`ARCamera.TrackingState.Reason`).
    public enum Reason: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
      /// The session has just started (or restarted) and has no reliable pose yet.
      case initializing
      /// The camera moves too fast for features to be matched between frames.
      case excessiveMotion
      /// The scene has too few visible features (texture) to track.
      case insufficientFeatures
      /// Tracking was lost or interrupted and the session is trying to recover its pose against the
      /// known map.
      case relocalizing

      /// The case's name, for example `"excessiveMotion"`.
      public var description: String { rawValue }
    }

    /// `"normal"`, `"notAvailable"`, or `"limited:"` followed by the reason's name (for example
    /// `"limited:insufficientFeatures"`).
    public var description: String {
      switch self {
      case .notAvailable: "notAvailable"
      case .normal: "normal"
      case .limited(let reason): "limited:\(reason.rawValue)"
      }
    }

    /// The state whose ``description`` is `description`; `nil` for any other string.
    public init?(_ description: String) {
      switch description {
      case "notAvailable": self = .notAvailable
      case "normal": self = .normal
      default:
        let prefix = "limited:"
        guard description.hasPrefix(prefix),
          let reason = Reason(rawValue: String(description.dropFirst(prefix.count)))
        else { return nil }
        self = .limited(reason)
      }
    }
  }
}

extension ARCamera {
  /// Hashes the pose and the tracking state (equal cameras have equal poses and states).
  public func hash(into hasher: inout Hasher) {
    hasher.combine(transform.columns.0)
    hasher.combine(transform.columns.1)
    hasher.combine(transform.columns.2)
    hasher.combine(transform.columns.3)
    hasher.combine(trackingState)
  }
}
