import ARSim
import ARSimRun
import Foundation

/// `arsim replay RECORDING [options]`: reads a recording frame by frame and prints a summary.
enum ReplayCommand {
  static let help = """
    usage: arsim replay RECORDING [options]

    Replays a recorded session (an ARSim folder with session.json, or a TUM RGB-D folder)
    frame by frame in recorded time and prints a summary on stdout; progress goes to stderr.

    options:
      --format auto|arsim|tum|stray|record3d|arkitscenes|scanner3d
                                    recording layout (default auto: detected from the files)
      --intrinsics fx,fy,cx,cy      camera intrinsics in pixels; overrides the recording's
                                    (required for TUM folders without intrinsics.txt or a
                                    freiburg1/2/3 name)
      --mode rgbd|mono|depth        tracking mode (default rgbd when the recording has depth;
                                    depth, ICP on depth alone, when it has depth but no images)
      --scale METRES                monocular without depth: length of the initial baseline
      --planes LIST                 horizontal,vertical | horizontal | vertical | none
                                    (default horizontal,vertical)
      --threads N                   1: read, decode and track on one thread; 2 (default): decode
                                    the next frames on a second thread, KLT shared with a helper
                                    thread (same outputs)
      --no-loop-closure             RGB-D: do not close loops (to compare)
      --trajectory FILE             write the camera trajectory (TUM format, optical frame)
      --events FILE                 write delegate events as JSON Lines
      --taps FILE --hits FILE       raycast taps ('timestamp u v' lines), write hits as JSON Lines
      --target NAME                 raycast target for --taps (default existingPlaneGeometry)
      --alignment NAME              raycast alignment for --taps (default any)
      --frames FIRST-LAST           replay only the frames with these indices (LAST may be left
                                    out: to the end), e.g. one recording as two sessions
      --save-map FILE               write the session's world map at the end (ARSim's world map
                                    format, Datasets/README.md; needs rgbd tracking)
      --load-map FILE               start from a world map: limited:relocalizing until a frame is
                                    located in it, then the map's world and anchors
      --mesh FILE                   reconstruct the scene (sceneReconstruction
                                    .meshWithClassification; needs depth) and write the final mesh
                                    as PLY: the union of the mesh anchors in the session world,
                                    metres, vertices with normals, faces with their classification
                                    (ARMeshClassification raw value)
      --help                        show this help

    Exit status 0 on success; non-zero with a one-line error naming the file and the problem.
    """

  static let valueOptions: Set<String> = [
    "format", "intrinsics", "mode", "planes", "trajectory", "events", "taps", "hits", "target", "alignment",
    "scale", "threads", "frames", "save-map", "load-map", "mesh",
  ]

  static func run(_ arguments: [String]) throws -> Int32 {
    let args = try Arguments(arguments, valueOptions: valueOptions, flagOptions: ["help", "no-loop-closure"])
    if args.flag("help") {
      print(help)
      return 0
    }
    guard args.positional.count == 1 else {
      throw Arguments.UsageError(
        args.positional.isEmpty
          ? "missing RECORDING (see --help)" : "expected one RECORDING, got \(args.positional.count)")
    }
    let (target, alignment) = try ReplayOptions.raycastChoices(args)
    if (args.value("taps") == nil) != (args.value("hits") == nil) {
      throw Arguments.UsageError("--taps and --hits go together")
    }
    var options = try ReplayOptions(arguments: args)
    if args.value("mesh") != nil { options.sceneReconstruction = .meshWithClassification }
    if let path = args.value("load-map") {
      options.initialWorldMap = try ARWorldMap(contentsOf: URL(fileURLWithPath: path))
    }
    let run = try ReplayRun(folder: args.positional[0], options: options)
    if let path = args.value("events") { try run.logEvents(to: path) }
    if let tapsPath = args.value("taps"), let hitsPath = args.value("hits") {
      try run.castTaps(from: tapsPath, to: hitsPath, target: target, alignment: alignment)
    }
    if let path = args.value("trajectory") { try run.writeTrajectory(to: path) }
    try run.run()
    print(run.summary.report(info: run.info))
    print("tracking: \(run.mode.rawValue) (\(run.modeReason))" + run.sourcesSummary)
    print("states: " + run.stateTimeline())
    if let map = options.initialWorldMap { print("map: " + relocalization(run, map: map)) }
    let loops = run.frames.filter(\.closedLoop).map { String($0.index) }
    if !loops.isEmpty { print("loops closed: \(loops.count) (frames \(loops.joined(separator: ", ")))") }
    if let path = args.value("save-map") {
      let map = try run.session.currentWorldMap().get()
      try map.write(to: URL(fileURLWithPath: path))
      print(
        "map saved: \(path) (\(map.keyframeCount) keyframes, \(map.rawFeaturePoints.count) points, "
          + "\(map.anchors.count) anchors)")
    }
    print(planesLine(run.session.anchors.compactMap { $0 as? ARPlaneAnchor }))
    if let path = args.value("mesh") {
      let anchors = run.session.anchors.compactMap { $0 as? ARMeshAnchor }
      let (vertices, faces) = try PLYWriter.writeMesh(
        anchors,
        comments: ["arsim replay --mesh: session world, metres; face classification: ARMeshClassification"],
        to: path)
      print("mesh: \(anchors.count) anchors, \(vertices) vertices, \(faces) faces, written to \(path)")
    }
    if !run.frames.isEmpty {
      let median = { (values: [Double]) in values.sorted()[values.count / 2] * 1000 }
      let tracking = run.frames.map { $0.timings.track + $0.timings.pose + $0.timings.map }
      printError(
        String(
          format: "timing: reading %.2f ms, tracking %.2f ms, planes %.2f ms per frame (medians)",
          median(run.frames.map(\.readSeconds)), median(tracking), median(run.frames.map(\.planeSeconds))))
    }
    return 0
  }

  /// The summary of a replay from a world map: where it relocalised, or that it did not.
  static func relocalization(_ run: ReplayRun, map: ARWorldMap) -> String {
    guard let start = run.frames.first else { return "not relocalized (no frames)" }
    guard let found = run.frames.firstIndex(where: { $0.state != .limited(.relocalizing) }) else {
      return "not relocalized: limited:relocalizing for all \(run.frames.count) frames"
    }
    let frame = run.frames[found]
    return String(
      format: "relocalized at frame %d (%d frames, %.2f s after the first), %d anchors restored", frame.index,
      found, frame.timestamp - start.timestamp, map.anchors.count)
  }

  /// How many planes the summary lists; the rest are counted.
  static let listedPlanes = 10

  /// The summary's planes line: how many, and the ``listedPlanes`` largest (by extent; ties keep
  /// the session's order) with classification, alignment and extent, the rest counted.
  static func planesLine(_ planes: [ARPlaneAnchor]) -> String {
    guard !planes.isEmpty else { return "planes: 0" }
    let area = { (plane: ARPlaneAnchor) in plane.planeExtent.width * plane.planeExtent.height }
    let largest = planes.enumerated().sorted { a, b in
      area(a.element) != area(b.element) ? area(a.element) > area(b.element) : a.offset < b.offset
    }
    let listed = largest.prefix(listedPlanes).map {
      "\($0.element.classification) \($0.element.alignment) "
        + String(format: "%.2fx%.2f m", $0.element.planeExtent.width, $0.element.planeExtent.height)
    }
    let rest = planes.count - listed.count
    return "planes: \(planes.count) (" + (rest > 0 ? "the \(listed.count) largest: " : "")
      + listed.joined(separator: "; ") + (rest > 0 ? "; \(rest) more" : "") + ")"
  }
}
