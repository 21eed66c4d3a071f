import ARSim
import ARSimRun
import ARSimSynth
import Foundation

/// `arsim render RECORDING --out DIR`: replays a recording and draws what the session saw.
enum RenderCommand {
  static let help = """
    usage: arsim render RECORDING --out DIR [options]

    Replays a recording (as arsim replay does) and writes pictures and exports into DIR (created
    when missing; files of the same names are replaced):

      frame-NNNNNN.png   every Nth frame and the last one (NNNNNN is the frame index): detected
                         planes filled (40% opacity) and outlined, nearest plane in front where
                         they overlap, clipped to what is in front of the camera; tracked feature
                         points as yellow dots; the tracking state as a badge in the top-left
                         corner (green normal, yellow limited, red not available); what is drawn
                         over the image follows --debug-options
      video.mp4          with --video: every frame drawn the same way (MPEG-4, recording's frame rate)
      trajectory.svg     seen from above: estimated trajectory beside the ground truth (SE(3)
                         Umeyama alignment over tracked frames, Sim(3) in mono mode; plotted in
                         the ground-truth world, x to the right and z down), the detected planes'
                         final polygons filled by classification, the ground-truth planes of
                         planes.json dashed, a scale bar in metres and a legend
      planes.ply         final plane polygons as faces, coloured by classification, in the session
                         world (metres; ASCII PLY, vertex and face colours)
      points.ply         every feature point seen, one per identifier at its latest position
                         (x y z, id, frame of the last sighting)
      trajectory.tum     tracked camera poses, TUM format, optical frame in the session world
      events.jsonl       the delegate's events as JSON Lines (the replay --events format)
      mesh.ply, mesh-top.png
                         with --debug-options sceneUnderstanding (recordings with depth): the final
                         reconstructed mesh (the replay --mesh format) and a picture of it seen from
                         above (x to the right, z down, faces turned downwards left out), shaded
                         by classification as in the frames

    Colours by classification: floor #1E88E5 (blue), table #FF8C00 (orange), wall #AB47BC (purple),
    ceiling #00BCD4 (cyan), seat #E91E63 (pink), none #E0E0E0 (light grey); feature points #FFEB3B.
    Every file is written under a temporary name and renamed when complete. Progress goes to
    stderr, the list of files written to stdout.

    options:
      --out DIR                     output folder (required)
      --every N                     draw every Nth frame (default: one frame per half second of
                                    recording at its frame rate, so 10 s give about 20 images)
      --video                       also write video.mp4 of all frames
      --format auto|arsim|tum       recording layout (default auto)
      --intrinsics fx,fy,cx,cy      camera intrinsics in pixels (overrides the recording's)
      --mode rgbd|mono|depth        tracking mode (default: what the recording supports)
      --scale METRES                monocular without depth: length of the initial baseline
      --planes LIST                 horizontal,vertical | horizontal | vertical | none
                                    (default horizontal,vertical)
      --debug-options LIST          what is drawn over the frames, as RealityKit's ARView.debugOptions
                                    (comma-separated; RealityKit's names showAnchorOrigins, ... work too):
                                    anchorGeometry (planes), featurePoints, anchorOrigins (each anchor's
                                    axes, 10 cm: x red, y green, z blue), worldOrigin (the session
                                    world's axes, 25 cm), sceneUnderstanding (the session reconstructs
                                    the scene: the mesh's triangles filled by classification, 60%
                                    opacity, shaded by how squarely they face the camera), or none
                                    (default anchorGeometry,featurePoints)
      --threads N                   1: read, decode and track on one thread; 2 (default): decode
                                    the next frames on a second thread, KLT shared with a helper
                                    thread (same outputs)
      --help                        show this help

    Exit status 0 on success; non-zero with a one-line error naming the file and the problem.
    """

  static func run(_ arguments: [String]) throws -> Int32 {
    let args = try Arguments(
      arguments,
      valueOptions: [
        "out", "every", "format", "intrinsics", "mode", "scale", "planes", "threads", "debug-options",
      ],
      flagOptions: ["help", "video"])
    if args.flag("help") {
      print(help)
      return 0
    }
    guard args.positional.count == 1 else {
      throw Arguments.UsageError(
        args.positional.isEmpty
          ? "missing RECORDING (see --help)" : "expected one RECORDING, got \(args.positional.count)")
    }
    guard let out = args.value("out") else { throw Arguments.UsageError("missing --out DIR (see --help)") }
    var every: Int?
    if let text = args.value("every") {
      guard let n = Int(text), n > 0 else {
        throw Arguments.UsageError("--every must be a positive whole number of frames, got '\(text)'")
      }
      every = n
    }
    let drawings = try args.value("debug-options").map { try RenderDebugOptions(parsing: $0) } ?? .standard
    let folder = args.positional[0]
    var options = try ReplayOptions(arguments: args, decodeColor: true)
    if drawings.contains(.sceneUnderstanding) { options.sceneReconstruction = .meshWithClassification }
    let run = try ReplayRun(folder: folder, options: options)
    do {
      try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
    } catch {
      throw Arguments.UsageError("\(out): cannot create the folder (\(error.localizedDescription))")
    }
    let renderer = FrameRenderer(
      folder: out, every: every ?? defaultEvery(frameRate: run.info.frameRate), video: args.flag("video"),
      frameRate: run.info.frameRate ?? 30, drawings: drawings)
    try run.logEvents(to: out + "/events.jsonl")
    try run.writeTrajectory(to: out + "/trajectory.tum")
    run.onFrame = { frame, _ in try renderer.add(frame) }
    try run.run()
    try renderer.finish()

    var written = renderer.written
    written.append(out + "/trajectory.tum")
    written.append(out + "/events.jsonl")

    let anchors = run.session.anchors
    let planes = anchors.compactMap { $0 as? ARPlaneAnchor }
    try PLYWriter.writePolygons(
      planes.map { plane in
        let worldFromAnchor = RigidTransform(matrix: plane.transform)
        return PLYWriter.Polygon(
          vertices: plane.geometry.boundaryVertices.map { worldFromAnchor.apply(to: SIMD3<Double>($0)) },
          color: RenderPalette.color(plane.classification))
      },
      comments: ["arsim render \(folder): final plane polygons in the session world, metres"]
        + planes.enumerated().map {
          "face \($0) \($1.identifier.uuidString) \($1.alignment) \($1.classification)"
        },
      to: out + "/planes.ply")
    written.append(out + "/planes.ply")
    try PLYWriter.writePoints(
      renderer.points.sorted { $0.key < $1.key }.map {
        PLYWriter.Point(position: $0.value.position, identifier: $0.key, frame: $0.value.frame)
      },
      comments: [
        "arsim render \(folder): feature points in the session world, metres, latest position per id"
      ],
      to: out + "/points.ply")
    written.append(out + "/points.ply")

    let meshes = anchors.compactMap { $0 as? ARMeshAnchor }
    if drawings.contains(.sceneUnderstanding) {
      let (vertices, faces) = try PLYWriter.writeMesh(
        meshes,
        comments: [
          "arsim render \(folder): session world, metres; face classification: ARMeshClassification"
        ],
        to: out + "/mesh.ply")
      written.append(out + "/mesh.ply")
      print("mesh: \(meshes.count) anchors, \(vertices) vertices, \(faces) faces")
      if let picture = MeshDrawing.topDown(meshes) {
        try renderer.writeImage(picture, name: "mesh-top")
        written.append(out + "/mesh-top.png")
      }
    }

    var plot = TopDownPlot(
      title: "arsim render \(folder)", frames: run.frames, planes: TopDownPlot.outlines(of: anchors),
      groundTruthGravity: run.info.groundTruthGravity,
      withScale: run.mode == .mono)
    let planesPath = folder + "/planes.json"
    if FileManager.default.fileExists(atPath: planesPath) {
      let truth = try GroundTruthPlanesFile.load(path: planesPath)
      plot.groundTruthPlanes = truth.planes.map {
        TopDownPlot.GroundTruthOutline(polygon: $0.polygon, label: $0.label.rawValue)
      }
      plot.groundTruthGravity = plot.groundTruthGravity ?? truth.gravity
    }
    let (svg, summary) = try plot.document()
    try svg.write(to: out + "/trajectory.svg")
    written.append(out + "/trajectory.svg")

    print("recording: \(folder)")
    print("images: \(renderer.imageCount) (every \(renderer.every) frames and the last)")
    print("planes: \(planes.count), feature points: \(renderer.points.count)")
    print(summary)
    for path in written { print("wrote \(path)") }
    return 0
  }

  /// One image per half second at `frameRate` (30 Hz when unknown).
  static func defaultEvery(frameRate: Double?) -> Int {
    max(1, Int((0.5 * (frameRate ?? 30)).rounded()))
  }
}

/// Draws frames as the replay delivers them: the selected ones to PNG, all of them to the video,
/// and collects the feature points. Each file is written under a temporary name and renamed.
final class FrameRenderer {
  let folder: String
  let every: Int
  private var video: VideoWriter?
  private let wantsVideo: Bool
  private let frameRate: Double
  /// What is drawn over each frame (`--debug-options`).
  private let drawings: RenderDebugOptions
  /// The last frame seen, drawn at the end if it was not selected.
  private var last: (frame: ARFrame, drawn: Bool)?
  /// Every feature point seen: its latest position and the index of the frame that saw it.
  private(set) var points: [UInt64: (position: SIMD3<Double>, frame: Int)] = [:]
  private(set) var written: [String] = []
  private(set) var imageCount = 0

  init(folder: String, every: Int, video: Bool, frameRate: Double, drawings: RenderDebugOptions = .standard) {
    self.folder = folder
    self.drawings = drawings
    self.every = every
    self.wantsVideo = video
    self.frameRate = frameRate
  }

  private var videoPath: String { folder + "/video.mp4" }
  // OpenCV picks the encoder by the extension, so the temporary name keeps it.
  private var videoTemporary: String { folder + "/video.partial.mp4" }
  /// The video's temporary file, registered for removal on an error or a signal.
  private var videoSlot: Int?

  func add(_ frame: ARFrame) throws {
    if let cloud = frame.rawFeaturePoints {
      for (point, id) in zip(cloud.points, cloud.identifiers) {
        points[id] = (SIMD3<Double>(point), frame.frameIndex)
      }
    }
    let selected = frame.frameIndex % every == 0
    guard selected || wantsVideo else {
      last = (frame, false)
      return
    }
    let image = FrameOverlay.draw(frame, options: drawings)
    // The video first: when it cannot be opened, the error comes before any image is written.
    if wantsVideo {
      if video == nil {
        videoSlot = TemporaryFiles.register(videoTemporary)
        video = try VideoWriter(
          path: videoTemporary, width: image.width, height: image.height, framesPerSecond: frameRate)
      }
      try video?.write(image)
    }
    if selected { try writeImage(image, index: frame.frameIndex) }
    last = (frame, selected)
  }

  func finish() throws {
    if let last, !last.drawn {
      try writeImage(FrameOverlay.draw(last.frame, options: drawings), index: last.frame.frameIndex)
    }
    if let video {
      try video.finish()
      try move(videoTemporary, to: videoPath)
      TemporaryFiles.unregister(videoSlot)
      written.append(videoPath)
    }
  }

  private func writeImage(_ image: RGBImage, index: Int) throws {
    try writeImage(image, name: String(format: "frame-%06d", index))
    imageCount += 1
  }

  /// Writes `image` to `name`.png in the folder.
  func writeImage(_ image: RGBImage, name: String) throws {
    let path = "\(folder)/\(name).png"
    let temporary = "\(folder)/\(name).partial.png"
    // Registered until moved into place: an error or a signal removes it.
    let slot = TemporaryFiles.register(temporary)
    do {
      try ImageCodec.write(image, to: temporary)
    } catch {
      throw Arguments.UsageError("\(path): cannot be written (\(error))")
    }
    try move(temporary, to: path)
    TemporaryFiles.unregister(slot)
    written.append(path)
  }

  private func move(_ temporary: String, to path: String) throws {
    guard rename(temporary, path) == 0 else {
      throw Arguments.UsageError("\(path): cannot be written (\(String(cString: strerror(errno))))")
    }
  }
}
