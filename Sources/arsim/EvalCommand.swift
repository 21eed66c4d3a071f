import ARSim
import ARSimEval
import ARSimSynth
import Foundation

/// `arsim eval RECORDING...`: replays each recording and scores it against its ground truth. Thin: it
/// replays (``ReplayRun``), reads the ground truth, turns both into ARSimEval's values, and hands the
/// pure metrics' results to ``EvaluationReport`` for stdout and the report files.
enum EvalCommand {
  static let help = """
    usage: arsim eval RECORDING... [options]

    Replays each recording (as arsim replay does, plane detection on) and scores the result
    against the recording's ground truth. Per recording:
      tracking  ATE (RMSE of optical-frame positions after SE(3) Umeyama alignment over the tracked
                frames; Sim(3) in monocular mode), RPE over consecutive tracked frames (evo's
                definitions), the fraction of frames tracked, the tracking-state time line, the
                largest distance of the camera from its first pose, estimated (session world, no
                alignment) and true, over the frames with a pose (tracked, or rotation-only while
                a monocular map initialises)
      planes    (planes.json) each ground-truth plane matched to the final anchors by normal angle
                (<= 10 deg), offset of the anchor's centre (<= 5 cm) and overlap of the polygons in the
                ground-truth plane; precision (anchors matching a plane), recall (planes of >= 0.25 m2
                seen >= 1 s), normal and offset error, polygon IoU (best anchor; union of anchors;
                planes seen whole: >= 90% of the area in view, within 5 m, unoccluded, in some
                frame), time to first detection, classification accuracy
      raycasts  (taps.txt) each tap cast at the frame nearest in time (--target, --alignment):
                hit rate over taps whose true point lies on a detected plane, and over all taps;
                error of the nearest hit in the ground-truth world, camera-relative, along the ray
    Anchors and hits are mapped into the ground-truth world by the trajectory alignment. With
    several recordings a batch table follows (mean, median, worst per metric). Tables go to
    stdout, progress to stderr; --json and --markdown are written atomically.

    options:
      --format auto|arsim|tum       recording layout (default auto)
      --intrinsics fx,fy,cx,cy      camera intrinsics in pixels (overrides the recording's)
      --mode rgbd|mono              tracking mode (default rgbd when the recording has depth)
      --scale METRES                monocular without depth: length of the initial baseline
      --planes LIST                 horizontal,vertical | horizontal | vertical | none
                                    (default horizontal,vertical)
      --target NAME                 raycast target for the taps (default existingPlaneGeometry)
      --alignment NAME              raycast alignment for the taps (default any)
      --json FILE                   write the report as JSON
      --markdown FILE               write the report as Markdown
      --trajectory FILE             also write the estimated trajectory (TUM format; one RECORDING)
      --help                        show this help

    Exit status 0 on success; non-zero with a one-line error naming the file and the problem.
    """

  static func run(_ arguments: [String]) throws -> Int32 {
    let args = try Arguments(
      arguments,
      valueOptions: [
        "format", "intrinsics", "mode", "scale", "trajectory", "planes", "json", "markdown", "target",
        "alignment",
      ],
      flagOptions: ["help"])
    if args.flag("help") {
      print(help)
      return 0
    }
    guard !args.positional.isEmpty else { throw Arguments.UsageError("missing RECORDING (see --help)") }
    guard args.positional.count == 1 || args.value("trajectory") == nil else {
      throw Arguments.UsageError("--trajectory takes one RECORDING")
    }
    let target: ARRaycastQuery.Target =
      switch try args.choice(
        "target", ["existingPlaneGeometry", "existingPlaneInfinite", "estimatedPlane"],
        default: "existingPlaneGeometry")
      {
      case "existingPlaneInfinite": .existingPlaneInfinite
      case "estimatedPlane": .estimatedPlane
      default: .existingPlaneGeometry
      }
    let alignment: ARRaycastQuery.TargetAlignment =
      switch try args.choice("alignment", ["any", "horizontal", "vertical"], default: "any") {
      case "horizontal": .horizontal
      case "vertical": .vertical
      default: .any
      }
    let outputs = [args.value("json"), args.value("markdown")].compactMap { $0 }
    for path in outputs { try checkWritable(path) }

    // Several paths (a shell glob such as Datasets/*): skip, with a note, what is not a recording.
    var folders = args.positional
    if folders.count > 1 {
      folders = folders.filter { folder in
        do {
          _ = try Recording.detectFormat(folder: folder)
          return true
        } catch {
          printError("eval: skipping \(error)")
          return false
        }
      }
      guard !folders.isEmpty else { throw Arguments.UsageError("none of the paths given is a recording") }
    }
    var evaluations: [RecordingEvaluation] = []
    for (k, folder) in folders.enumerated() {
      if folders.count > 1 { printError("eval \(k + 1)/\(folders.count): \(folder)") }
      evaluations.append(try evaluate(folder, arguments: args, target: target, alignment: alignment))
    }
    print(EvaluationReport.text(evaluations))
    if let path = args.value("json") { try write(EvaluationReport.json(evaluations), to: path) }
    if let path = args.value("markdown") { try write(EvaluationReport.markdown(evaluations), to: path) }
    return 0
  }

  /// Replays one recording and scores it.
  static func evaluate(
    _ folder: String, arguments args: Arguments, target: ARRaycastQuery.Target,
    alignment: ARRaycastQuery.TargetAlignment
  ) throws -> RecordingEvaluation {
    let run = try ReplayRun(folder: folder, arguments: args)
    run.collectsPlaneAnchors = !run.configuration.planeDetection.isEmpty
    let truth = try GroundTruthPaths(folder: folder, format: run.info.format)
    let referencePlanes = try truth.planes.map { path in try GroundTruthPlanesFile.load(path: path).planes }
    let taps = try truth.taps.map(readTaps)
    if let taps {
      try run.collectTaps(
        taps.enumerated().map { TapCaster.Tap(time: $1.timestamp, pixel: SIMD2($1.u, $1.v), id: $0) },
        target: target, alignment: alignment)
    }
    if let path = args.value("trajectory") { try run.streamTrajectory(to: path) }
    try run.run()

    let isMono = run.configuration.tracking.mode == .mono
    let tracking = try evaluateTracking(
      run.frames.map {
        TrackedFrame(
          timestamp: $0.timestamp, state: "\($0.state)", isTracked: $0.isTracked, hasPose: $0.hasPose,
          estimate: $0.worldFromOptical,
          groundTruth: $0.groundTruth)
      }, withScale: isMono)
    var notes: [String] = []
    var planes: PlaneEvaluation?
    var raycasts: RaycastEvaluation?
    let sessionToTruth = tracking.alignment
    if sessionToTruth == nil {
      notes.append("no ground-truth trajectory over 3 or more tracked frames: nothing is aligned or scored")
    }
    if isMono, let scale = sessionToTruth?.scale {
      notes.append(
        "monocular: anchors and hits are mapped by the Sim(3) alignment (scale \(String(format: "%.4f", scale)))"
      )
    }
    var converter = AnchorConverter(alignment: sessionToTruth ?? .identity)
    var references: [ReferencePlane] = []
    if let referencePlanes {
      let intrinsics = run.info.intrinsics
      let fractions = seenFractions(
        ofPolygons: referencePlanes.map(\.polygon), cameraPoses: run.frames.compactMap(\.groundTruth),
        intrinsics: PinholeIntrinsics(
          fx: intrinsics.fx, fy: intrinsics.fy, cx: intrinsics.cx, cy: intrinsics.cy, width: intrinsics.width,
          height: intrinsics.height))
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
          PlaneSnapshot(timestamp: frame.timestamp, planes: frame.planeAnchors.map { converter.convert($0) })
        }
        planes = evaluatePlanes(
          references: references, detected: final, history: history, startTime: run.frames.first?.timestamp)
      }
    }
    if let taps, let sessionToTruth {
      let groundTruthByFrame = Dictionary(
        run.frames.compactMap { frame in frame.groundTruth.map { (frame.index, $0) } },
        uniquingKeysWith: { first, _ in first })
      let referencesById = Dictionary(references.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
      let samples = run.tapCasts.map { cast in
        let tap = taps[cast.tap.id]
        let nearest = cast.results.first
        let hit = nearest.map { result in
          let p = result.worldTransform.columns.3
          return sessionToTruth.apply(to: SIMD3<Double>(Double(p.x), Double(p.y), Double(p.z)))
        }
        let reference = referencesById[tap.planeId]
        return RaycastSample(
          timestamp: tap.timestamp, referenceId: tap.planeId, groundTruthPoint: tap.world,
          groundTruthCamera: groundTruthByFrame[cast.frameIndex],
          estimatedCamera: sessionToTruth.apply(to: cast.worldFromOptical), hit: hit,
          hitIdentifier: nearest?.anchor?.identifier.uuidString,
          isOnDetectedPlane: pointLiesOnDetectedPlane(
            tap.world, reference: reference, planes: cast.planeAnchors.map { converter.convert($0) }))
      }
      raycasts = evaluateRaycasts(samples)
    } else if taps == nil {
      notes.append("no ground-truth taps (taps.txt): raycasts not scored")
    }
    return RecordingEvaluation(
      recording: folder, mode: run.configuration.tracking.mode.rawValue,
      gravitySource: run.session.gravitySource?.rawValue, notes: notes, tracking: tracking, planes: planes,
      raycasts: raycasts)
  }

  /// Reads `taps.txt` (checked: see `GroundTruthTap.load(path:)`).
  static func readTaps(_ path: String) throws -> [GroundTruthTap] { try GroundTruthTap.load(path: path) }

  /// Fails early, before a long replay, when a report cannot be written to `path`.
  static func checkWritable(_ path: String) throws {
    let directory = (path as NSString).deletingLastPathComponent
    let folder = directory.isEmpty ? "." : directory
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory), isDirectory.boolValue,
      FileManager.default.isWritableFile(atPath: folder)
    else { throw Arguments.UsageError("\(path): cannot be written (no writable folder \(folder))") }
  }

  /// Writes `text` to `path` atomically (as `PATH.partial`, then renamed).
  static func write(_ text: String, to path: String) throws {
    let file = try OutputFile(path: path)
    try file.write(text.hasSuffix("\n") ? String(text.dropLast()) : text)
    try file.close()
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

/// Turns plane anchors into ARSimEval's values in the ground-truth world, once per anchor object
/// (anchors are immutable; an update is a new object).
struct AnchorConverter {
  let alignment: Similarity
  private var cache: [ObjectIdentifier: DetectedPlane] = [:]

  init(alignment: Similarity) { self.alignment = alignment }

  mutating func convert(_ anchor: ARPlaneAnchor) -> DetectedPlane {
    if let known = cache[ObjectIdentifier(anchor)] { return known }
    let plane = DetectedPlane(
      identifier: anchor.identifier.uuidString,
      alignment: anchor.alignment == .horizontal ? .horizontal : .vertical,
      classification: "\(anchor.classification)", worldFromAnchor: RigidTransform(matrix: anchor.transform),
      center: SIMD3<Double>(anchor.center),
      boundary: anchor.geometry.boundaryVertices.map { SIMD3<Double>($0) }
    ).transformed(by: alignment)
    cache[ObjectIdentifier(anchor)] = plane
    return plane
  }
}
