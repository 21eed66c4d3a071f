#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Gravity-aligned plane geometry shared by the segmentation and the anchors.
enum GravityAlignedPlane {
  static let up = SIMD3<Double>(0, 1, 0)

  /// The least-squares plane of `moments` constrained to the alignment: horizontal planes are
  /// `y = mean y` with normal +y; vertical planes have the normal in the x-z plane that minimises the
  /// squared distances (the smallest eigenvector of the x-z covariance), its sign as close as possible to
  /// `reference` (when given). `nil` when there are fewer than three points or the x-z spread is
  /// isotropic (no direction stands out).
  static func fit(
    _ moments: PlaneMoments, alignment: ARPlaneAnchor.Alignment, reference: SIMD3<Double>? = nil
  ) -> Plane? {
    guard moments.count >= 3, let mean = moments.mean, let covariance = moments.covariance else {
      return nil
    }
    switch alignment {
    case .horizontal:
      return Plane(normal: up, offset: -mean.y)
    case .vertical:
      let a = covariance[0, 0]
      let b = covariance[2, 0]
      let d = covariance[2, 2]
      let half = (a - d) / 2
      let root = (half * half + b * b).squareRoot()
      let smallest = (a + d) / 2 - root
      // Two expressions of the eigenvector of `smallest`; take the better conditioned one.
      let v1 = SIMD2(b, smallest - a)
      let v2 = SIMD2(smallest - d, b)
      var v = simd_length_squared(v1) >= simd_length_squared(v2) ? v1 : v2
      let length = simd_length(v)
      guard length > 1e-12 * max(a + d, 1e-30), root > 1e-9 * (a + d) else { return nil }
      v /= length
      var normal = SIMD3(v.x, 0, v.y)
      if let reference, simd_dot(normal, reference) < 0 { normal = -normal }
      return Plane(point: mean, normal: normal)
    }
  }

  /// In-plane axes `(e1, e2)` of a gravity-aligned plane with unit normal `normal`, right-handed with it
  /// (`e1 × e2 = normal`): for a horizontal plane world x and −z; for a vertical one the horizontal
  /// `up × normal` and up. These are the anchor's x and −z axes.
  static func axes(normal: SIMD3<Double>, alignment: ARPlaneAnchor.Alignment) -> (
    SIMD3<Double>, SIMD3<Double>
  ) {
    switch alignment {
    case .horizontal:
      return (SIMD3(1, 0, 0), SIMD3(0, 0, -1))
    case .vertical:
      return (simd_normalize(SIMD3(normal.z, 0, -normal.x)), up)
    }
  }

  /// Whether the free least-squares normal of `moments` is within the alignment's tolerance of gravity
  /// (horizontal) or of the horizontal (vertical).
  static func isWithinTolerance(
    _ moments: PlaneMoments, alignment: ARPlaneAnchor.Alignment, options: PlaneDetectionOptions
  ) -> Bool {
    guard let free = moments.plane else { return false }
    return isWithinTolerance(free, alignment: alignment, options: options)
  }

  /// Whether `free`, a free least-squares plane, is within the alignment's tolerance (as
  /// ``isWithinTolerance(_:alignment:options:)-(PlaneMoments,_,_)`` for the plane of the moments).
  static func isWithinTolerance(
    _ free: Plane, alignment: ARPlaneAnchor.Alignment, options: PlaneDetectionOptions
  ) -> Bool {
    let verticalComponent = free.normal.y.magnitude
    switch alignment {
    case .horizontal:
      return verticalComponent >= cos(options.horizontalToleranceDegrees * .pi / 180)
    case .vertical:
      return verticalComponent <= sin(options.verticalToleranceDegrees * .pi / 180)
    }
  }
}
