import ARSim
import ARSimEval
import ARSimSynth
import Foundation

/// Replays a recording and scores it against its ground truth: what `arsim eval` does per recording.
/// It replays (``ReplayRun``), reads the ground truth, turns both into ARSimEval's values, and
/// hands them to the pure metrics.
public enum RecordingEvaluator {
  /// Replays `folder` with `options` (plane detection as they say), casts the recording's ground-truth
  /// taps with `target` and `alignment`, and scores tracking, planes and raycasts; writes the estimated
  /// trajectory to `trajectoryPath` when given, and the gravity error of every frame to `gravityTracePath`
  /// when given (``writeGravityTrace(delivered:final:gravity:to:)``); the replay's progress on stderr is named
  /// `progressLabel`. Deterministic: the same recording and options give an
  /// equal evaluation.
  ///
  /// - Throws: `RecordingError` naming the file (recording or ground truth) and the problem.
  public static func evaluate(
    _ folder: String, options: ReplayOptions, target: ARRaycastQuery.Target,
    alignment: ARRaycastQuery.TargetAlignment, trajectoryPath: String? = nil, gravityTracePath: String? = nil,
    progressLabel: String = "replay"
  ) throws -> RecordingEvaluation {
    let run = try ReplayRun(folder: folder, options: options)
    run.progressLabel = progressLabel
    run.collectsPlaneAnchors = !run.configuration.planeDetection.isEmpty
    let truth = try GroundTruthPaths(folder: folder, format: run.info.format)
    let referencePlanes = try truth.planes.map { path in try GroundTruthPlanesFile.load(path: path).planes }
    let taps = try truth.taps.map(readTaps)
    if let taps {
      try run.collectTaps(
        taps.enumerated().map { TapCaster.Tap(time: $1.timestamp, pixel: SIMD2($1.u, $1.v), id: $0) },
        target: target, alignment: alignment)
    }
    if let path = trajectoryPath { try run.writeTrajectory(to: path) }
    try run.run()

    let isMono = run.mode == .mono
    // The trajectory in the session's final world, as saved; gravity as each frame delivered it.
    func evaluated(_ pose: (ReplayRun.FrameRecord) -> RigidTransform) -> [EvaluatedFrame] {
      run.frames.map {
        EvaluatedFrame(
          timestamp: $0.timestamp, state: "\($0.state)", isTracked: $0.isTracked, hasPose: $0.hasPose,
          estimate: pose($0), groundTruth: $0.groundTruth)
      }
    }
    let final = evaluated(\.worldFromOptical)
    let delivered = evaluated(\.deliveredWorldFromOptical)
    var tracking = try evaluateTracking(final, withScale: isMono)
    tracking.gravityError = run.info.groundTruthGravity.flatMap { gravityErrors(delivered, gravity: $0) }
    if let path = gravityTracePath {
      guard let gravity = run.info.groundTruthGravity else {
        throw RecordingError(file: folder, "--gravity-trace: the recording has no ground-truth gravity")
      }
      try writeGravityTrace(delivered: delivered, final: final, gravity: gravity, to: path)
    }
    var notes: [String] = []
    var planes: PlaneEvaluation?
    var raycasts: RaycastEvaluation?
    var sessionToTruth = tracking.alignment
    if sessionToTruth == nil {
      notes.append("no ground-truth trajectory over 3 or more tracked frames: nothing is aligned or scored")
    } else if !isMono, let gravity = run.info.groundTruthGravity {
      // Both worlds know their up: planes and taps are scored through an alignment that keeps it, so
      // that the SE(3) fit's tilt (poorly fixed by a path along nearly one line) does not tilt them.
      let pairs = run.frames.filter { $0.isTracked && $0.groundTruth != nil }
      sessionToTruth = try Trajectory(
        timestamps: pairs.map(\.timestamp), poses: pairs.map(\.worldFromOptical)
      )
      .gravityAlignment(
        to: Trajectory(timestamps: pairs.map(\.timestamp), poses: pairs.map { $0.groundTruth! }), up: -gravity
      )
      if referencePlanes != nil || taps != nil {
        notes.append(
          "planes and taps are scored through the alignment that keeps up (a turn about it and a translation)"
        )
      }
    }
    if isMono, let scale = sessionToTruth?.scale {
      notes.append(
        "monocular: anchors and hits are mapped by the Sim(3) alignment (scale \(String(format: "%.4f", scale)))"
      )
    }
    var converter = AnchorConverter(alignment: sessionToTruth ?? .identity)
    var references: [ReferencePlane] = []
    if let referencePlanes {
      let fractions = seenFractions(
        ofPolygons: referencePlanes.map(\.polygon), cameraPoses: run.frames.compactMap(\.groundTruth),
        intrinsics: run.info.intrinsics)
      references = zip(referencePlanes, fractions).map { plane, fraction in
        ReferencePlane(
          id: plane.id, label: plane.label.rawValue,
          alignment: SurfaceAlignment(rawValue: plane.alignment.rawValue) ?? .other,
          plane: Plane(normal: plane.normal, offset: plane.offset), polygon: plane.polygon, area: plane.area,
          firstSeen: plane.visibility.firstSeen, secondsSeen: plane.visibility.secondsSeen,
          seenFraction: fraction)
      }
    } else {
      notes.append("no ground-truth planes (planes.json): planes not scored")
    }
    if sessionToTruth != nil, referencePlanes != nil {
      if run.configuration.planeDetection.isEmpty {
        notes.append("plane detection is off (--planes none): planes not scored")
      } else {
        let final = run.session.anchors.compactMap { $0 as? ARPlaneAnchor }.map { converter.convert($0) }
        let history = run.frames.map { frame in
          PlaneSnapshot(
            timestamp: frame.timestamp,
            planes: frame.planeAnchors.map {
              converter.convert($0, epoch: frame.worldEpoch, frame.finalFromDelivered)
            })
        }
        planes = evaluatePlanes(
          references: references, detected: final, history: history, startTime: run.frames.first?.timestamp)
      }
    }
    if let taps, let sessionToTruth {
      let groundTruthByFrame = Dictionary(
        run.frames.compactMap { frame in frame.groundTruth.map { (frame.index, $0) } },
        uniquingKeysWith: { first, _ in first })
      let framesByIndex = Dictionary(
        run.frames.map { ($0.index, $0) }, uniquingKeysWith: { first, _ in first })
      let referencesById = Dictionary(references.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
      let samples = run.tapCasts.map { cast in
        let tap = taps[cast.tap.id]
        let nearest = cast.results.first
        // The hit and camera as the frame gave them, moved into the final world the alignment is for.
        let castFrame = framesByIndex[cast.frameIndex]
        let finalFromCast = castFrame?.finalFromDelivered ?? .identity
        let hit = nearest.map { result in
          let p = result.worldTransform.columns.3
          return sessionToTruth.apply(
            to: finalFromCast.apply(to: SIMD3<Double>(Double(p.x), Double(p.y), Double(p.z))))
        }
        let reference = referencesById[tap.planeId]
        return RaycastSample(
          timestamp: tap.timestamp, referenceId: tap.planeId, groundTruthPoint: tap.world,
          groundTruthCamera: groundTruthByFrame[cast.frameIndex],
          estimatedCamera: sessionToTruth.apply(to: finalFromCast * cast.worldFromOptical), hit: hit,
          hitIdentifier: nearest?.anchor?.identifier.uuidString,
          isOnDetectedPlane: pointLiesOnDetectedPlane(
            tap.world, reference: reference,
            planes: cast.planeAnchors.map {
              converter.convert($0, epoch: castFrame?.worldEpoch ?? 0, finalFromCast)
            }))
      }
      raycasts = evaluateRaycasts(samples)
    } else if taps == nil {
      notes.append("no ground-truth taps (taps.txt): raycasts not scored")
    }
    return RecordingEvaluation(
      recording: folder, mode: run.mode.rawValue,
      gravitySource: run.session.gravitySource?.rawValue, notes: notes, tracking: tracking, planes: planes,
      raycasts: raycasts)
  }

  /// Reads `taps.txt` (checked: see `GroundTruthTap.load(path:)`).
  public static func readTaps(_ path: String) throws -> [GroundTruthTap] {
    try GroundTruthTap.load(path: path)
  }
}

/// The ground-truth files of a recording: those `session.json` names (ARSim format), else `planes.json`
/// and `taps.txt` in the folder when present.
struct GroundTruthPaths {
  var planes: String?
  var taps: String?

  init(folder: String, format: RecordingFormat) throws {
    var named: RecordingSession.GroundTruthFiles?
    if format == .arsim { named = try RecordingSession.load(folder: folder).groundTruth }
    func locate(_ name: String?, _ fallback: String) throws -> String? {
      if let name {
        let path = folder + "/" + name
        guard FileManager.default.fileExists(atPath: path) else {
          throw RecordingError(file: path, "no such file (named in \(folder)/session.json)")
        }
        return path
      }
      let path = folder + "/" + fallback
      return FileManager.default.fileExists(atPath: path) ? path : nil
    }
    planes = try locate(named?.planes, "planes.json")
    taps = try locate(named?.taps, "taps.txt")
  }
}

/// Turns plane anchors into ARSimEval's values in the ground-truth world, once per anchor object and
/// world epoch (anchors are immutable; an update is a new object).
struct AnchorConverter {
  let alignment: Similarity
  private struct Key: Hashable {
    var anchor: ObjectIdentifier
    var epoch: Int
  }
  private var cache: [Key: DetectedPlane] = [:]

  init(alignment: Similarity) { self.alignment = alignment }

  /// `anchor`, given in the world of `epoch`, whose final world is `finalFromEpoch` from it; by default
  /// an anchor of the session's final world.
  mutating func convert(
    _ anchor: ARPlaneAnchor, epoch: Int = -1, _ finalFromEpoch: RigidTransform = .identity
  ) -> DetectedPlane {
    let key = Key(anchor: ObjectIdentifier(anchor), epoch: epoch)
    if let known = cache[key] { return known }
    let plane = DetectedPlane(
      identifier: anchor.identifier.uuidString,
      alignment: anchor.alignment == .horizontal ? .horizontal : .vertical,
      classification: "\(anchor.classification)", worldFromAnchor: RigidTransform(matrix: anchor.transform),
      center: SIMD3<Double>(anchor.center),
      boundary: anchor.geometry.boundaryVertices.map { SIMD3<Double>($0) }
    ).transformed(by: alignment * Similarity(finalFromEpoch))
    cache[key] = plane
    return plane
  }
}

extension RecordingEvaluator {
  /// Writes the gravity error of every frame with a pose and ground truth, one line each: its time,
  /// the error as the frame delivered it (what the eval's median is over, after the first second),
  /// and the error in the session's final world (every frame seen with the last gravity estimate).
  /// Where the two differ the estimate moved after the frame (a bias the camera's turns separated
  /// later); where the final error is large in the middle of a session the tracked orientation had
  /// drifted from where it is at the end.
  static func writeGravityTrace(
    delivered: [EvaluatedFrame], final: [EvaluatedFrame], gravity: SIMD3<Double>, to path: String
  ) throws {
    let finalErrors = Dictionary(
      gravityErrorSeries(final, gravity: gravity).map { ($0.timestamp, $0.degrees) },
      uniquingKeysWith: { a, _ in a })
    let file = try OutputFile(path: path)
    try file.write("# timestamp delivered_degrees final_degrees")
    for (timestamp, degrees) in gravityErrorSeries(delivered, gravity: gravity) {
      let final = finalErrors[timestamp].map { String(format: "%.4f", $0) } ?? "nan"
      try file.write(String(format: "%.6f %.4f ", timestamp, degrees) + final)
    }
    try file.close()
  }
}
