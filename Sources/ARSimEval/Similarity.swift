/// A similarity transform `x ↦ s R x + t`: a rotation, a uniform scale and a translation (Sim(3); with
/// `scale == 1` it is a rigid transform, SE(3)).
///
/// Used to align an estimated trajectory to a reference: it maps the estimate's world frame into the
/// reference's world frame, and `scale` corrects the estimate's length unit (monocular tracking).
public struct Similarity: Sendable, Hashable, Codable {
  /// The rotation `R`, a unit quaternion (normalised by the initialisers).
  public var rotation: simd_quatd
  /// The translation `t` in the destination frame's units (metres of the reference).
  public var translation: SIMD3<Double>
  /// The scale `s` (dimensionless, positive): destination metres per source unit.
  public var scale: Double

  /// A similarity from a rotation (normalised here), a translation in metres and a scale.
  public init(
    rotation: simd_quatd = simd_quatd(ix: 0, iy: 0, iz: 0, r: 1), translation: SIMD3<Double> = .zero,
    scale: Double = 1
  ) {
    self.rotation = rotation.normalized
    self.translation = translation
    self.scale = scale
  }

  /// The similarity with the rotation and translation of `rigid` and scale 1.
  public init(_ rigid: RigidTransform) {
    self.init(rotation: rigid.rotation, translation: rigid.translation, scale: 1)
  }

  /// The identity (no rotation, no translation, scale 1).
  public static let identity = Similarity()

  /// The point `point` (source frame) in the destination frame: `s R p + t`.
  public func apply(to point: SIMD3<Double>) -> SIMD3<Double> {
    scale * rotation.act(point) + translation
  }

  /// A pose `worldFromSensor` of the source world as a pose in the destination world: rotation
  /// `R · R_pose`, translation `s R t_pose + t`. The scale changes where the sensor is, not the sensor
  /// frame's own axes, so the result is still a rigid transform (what evo does when it scales and
  /// transforms a trajectory).
  public func apply(to pose: RigidTransform) -> RigidTransform {
    RigidTransform(rotation: rotation * pose.rotation, translation: apply(to: pose.translation))
  }

  /// The inverse similarity `x ↦ (1/s) Rᵀ (x − t)`.
  public var inverse: Similarity {
    let inverseRotation = rotation.conjugate
    return Similarity(
      rotation: inverseRotation, translation: -inverseRotation.act(translation) / scale, scale: 1 / scale)
  }

  /// The composition `lhs * rhs`: apply `rhs` first.
  public static func * (lhs: Similarity, rhs: Similarity) -> Similarity {
    Similarity(
      rotation: lhs.rotation * rhs.rotation, translation: lhs.apply(to: rhs.translation),
      scale: lhs.scale * rhs.scale)
  }

  /// The similarity that best maps `source` points onto the corresponding `target` points in the least
  /// squares sense, `min Σ |target_i − (s R source_i + t)|²`, by Umeyama's closed form (Umeyama 1991,
  /// "Least-squares estimation of transformation parameters between two point patterns"), as evo's
  /// `umeyama_alignment`.
  ///
  /// With `withScale == false` the scale is fixed at 1 (SE(3) alignment); otherwise it is estimated too
  /// (Sim(3)). The rotation is always proper (no reflection), also for point sets that a reflection
  /// would fit better. For fewer than three non-collinear points the rotation about the points' line is
  /// not determined by the data; a deterministic one is returned.
  ///
  /// - Throws: `EvaluationError` `.mismatchedTrajectories` when the counts differ, `.tooFewPoses` when
  ///   there are no points, `.degenerateGeometry` when a scale is requested and all source points
  ///   coincide.
  public static func umeyama(
    from source: [SIMD3<Double>], to target: [SIMD3<Double>], withScale: Bool
  ) throws -> Similarity {
    guard source.count == target.count else {
      throw EvaluationError(
        .mismatchedTrajectories,
        "alignment needs corresponding points: \(source.count) source, \(target.count) target points")
    }
    guard !source.isEmpty else {
      throw EvaluationError(.tooFewPoses, "alignment needs at least one point pair")
    }
    let n = Double(source.count)
    var meanSource = SIMD3<Double>.zero
    var meanTarget = SIMD3<Double>.zero
    for k in source.indices {
      meanSource += source[k]
      meanTarget += target[k]
    }
    meanSource /= n
    meanTarget /= n
    // Source variance σ² and cross-covariance Σ = (1/n) Σ (y − μy)(x − μx)ᵀ.
    var variance = 0.0
    var covariance = simd_double3x3()
    for k in source.indices {
      let x = source[k] - meanSource
      let y = target[k] - meanTarget
      variance += simd_length_squared(x)
      covariance.columns.0 += x.x * y
      covariance.columns.1 += x.y * y
      covariance.columns.2 += x.z * y
    }
    variance /= n
    covariance = (1 / n) * covariance
    let svd = SignedSingularValueDecomposition(covariance)
    // With both factors rotations, R = U Vᵀ is Umeyama's U S Vᵀ including the reflection case.
    let rotationMatrix = svd.u * svd.v.transpose
    var scale = 1.0
    if withScale {
      guard variance > 0 else {
        throw EvaluationError(
          .degenerateGeometry, "cannot estimate a scale: all \(source.count) source points coincide")
      }
      scale = (svd.values.x + svd.values.y + svd.values.z) / variance
    }
    let rotation = simd_quatd(rotationMatrix)
    return Similarity(
      rotation: rotation, translation: meanTarget - scale * rotation.act(meanSource), scale: scale)
  }
}
