import ARSim
import ARSimRun
import ARSimSynth
import Foundation

/// `arsim generate SCENE OUT [options]`: renders a synthetic recording with ground truth.
enum GenerateCommand {
  static let help = """
    usage: arsim generate SCENE.json OUT/ [options]

    Renders the synthetic scene SCENE.json (format: Datasets/README.md) into the recording folder OUT
    with exact ground truth: camera poses, planes.json and taps.txt. Deterministic: the same scene and
    options give the same files. Progress goes to stderr, a summary to stdout.

    options:
      --format F              output layout (default arsim): arsim, tum, or as a phone app writes it:
                              stray (Stray Scanner: rgb.mp4 in HEVC, lossy, as iPhones record,
                              depth/ mm PNG, confidence/, odometry.csv, imu.csv in g), record3d
                              (Record3D's EXR+JPG folder), r3d (Record3D's .r3d zip, OUT/recording.r3d),
                              arkitscenes (an ARKitScenes video folder: PNG colour, no IMU),
                              scanner3d (the 3D Scanner App's "All Data" export in OUT/All_Data:
                              frame_N.json, depth_N.png, conf_N.png, JPEG colour on every third
                              frame only, no IMU); ground truth planes.json and taps.txt go beside,
                              in OUT
      --float-depth           arsim only: depth as 32-bit float EXR (exact) instead of mm PNG
      --frames N              render only the first N frames
      --jpeg-quality Q        JPEG quality of the colour images, 1...100 (default 90)
      --png                   lossless PNG colour images instead of JPEG
      --scale S               scale the image size and intrinsics by S (e.g. 0.5 for 320x240 from 640x480)
      --fps F                 frame rate instead of the scene's
      --duration D            duration in seconds instead of the scene's (within its keyframes)
      --seed N                seed instead of the scene's
      --profile phone         a phone's sensors (Datasets/README.md): 256x192 depth with confidence and
                              flying pixels, rolling shutter, white-balance drift, dropped frames,
                              timestamp jitter, JPEG quality 80 (the scene's own sensors.phone if it has one)
      --depth-noise K         depth noise k (standard deviation k·d², d in metres) instead of the
                              scene's; 0 gives noise-free depth, which compresses far better
                              (ignored when the scene has no depth sensor)
      --depth-scale S         the phone's depth reads S times the true depth (a LiDAR's scale error; the
                              ground truth stays exact); needs --profile phone or the scene's sensors.phone
      --overwrite             replace an earlier recording in OUT (otherwise OUT must be new or empty)
      --bench                 render without writing anything (OUT may be left out) and print the
                              median milliseconds per frame
      --help                  show this help

    Exit status 0 on success; non-zero with a one-line error naming the file and the problem.
    """

  static let valueOptions: Set<String> = [
    "format", "frames", "jpeg-quality", "scale", "fps", "duration", "seed", "depth-noise", "profile",
    "depth-scale",
  ]

  /// Files and folders a generated recording consists of; `--overwrite` removes only these.
  static let recordingEntries =
    [
      "session.json", "frames.txt", "imu.txt", "groundtruth.txt", "planes.json", "taps.txt", "rgb.txt",
      "depth.txt", "accelerometer.txt", "intrinsics.txt", "rgb", "depth", "confidence",
    ] + layoutMarkers + [
      "rgb.mp4", "camera_matrix.csv", "imu.csv", "lowres_wide", "lowres_depth",
      "lowres_wide_intrinsics",
    ]

  /// Files only a recording holds, one per layout: what `--overwrite` looks for before it removes.
  static let layoutMarkers = [
    "session.json", "rgb.txt", "odometry.csv", "metadata.json", "recording.r3d", "lowres_wide.traj",
    "All_Data",
  ]

  static func run(_ arguments: [String]) throws -> Int32 {
    let args = try Arguments(
      arguments, valueOptions: valueOptions,
      flagOptions: ["help", "png", "overwrite", "bench", "float-depth"])
    if args.flag("help") {
      print(help)
      return 0
    }
    let bench = args.flag("bench")
    guard args.positional.count == 2 || (bench && args.positional.count == 1) else {
      throw Arguments.UsageError(
        args.positional.isEmpty
          ? "missing SCENE and OUT (see --help)"
          : "expected SCENE and OUT, got \(args.positional.count) arguments")
    }
    let scenePath = args.positional[0]
    let format = try args.choice(
      "format", ["arsim", "tum", "stray", "record3d", "r3d", "arkitscenes", "scanner3d"], default: "arsim")
    var options = GenerationOptions()
    options.format = format == "r3d" ? .record3d : RecordingFormat(rawValue: format)!
    options.record3DArchive = format == "r3d"
    if args.flag("float-depth") {
      guard format == "arsim" else { throw Arguments.UsageError("--float-depth is for --format arsim only") }
      options.depthEncoding = .exrFloat
    }
    if let frames = try number(args, "frames", Int.init, valid: { $0 > 0 }, "a positive integer") {
      options.maxFrames = frames
    }
    let quality = try number(
      args, "jpeg-quality", Int.init, valid: { (1...100).contains($0) }, "an integer 1...100")
    if args.flag("png") {
      guard quality == nil else { throw Arguments.UsageError("--png and --jpeg-quality exclude each other") }
      options.encoding = .png
    }

    var scene = try SyntheticScene.load(path: scenePath)
    if try args.choice("profile", ["phone", "scene"], default: "scene") == "phone" {
      scene.sensors.phone = scene.sensors.phone ?? PhoneProfile()
    }
    if !args.flag("png") {
      options.encoding = .jpeg(quality: quality ?? scene.sensors.phone?.jpegQuality ?? 90)
    }
    if let scale = try number(args, "scale", Double.init, valid: { $0 > 0 && $0 <= 8 }, "a number in (0, 8]")
    {
      scene = scene.scaled(by: scale)
    }
    if let fps = try number(
      args, "fps", Double.init, valid: { (1...1000).contains($0) }, "a number in 1...1000")
    {
      scene.frameRate = fps
    }
    if let duration = try number(
      args, "duration", Double.init, valid: { $0 > 0 && $0 <= SyntheticScene.maxDuration },
      "a positive number of at most \(SyntheticScene.maxDuration) seconds")
    {
      scene.duration = duration
    }
    if let seed = try number(args, "seed", UInt64.init, valid: { _ in true }, "a non-negative integer") {
      scene.seed = seed
    }
    if let noise = try number(
      args, "depth-noise", Double.init, valid: { $0 >= 0 && $0.isFinite }, "zero or positive")
    {
      scene.sensors.depth?.noise = noise
    }
    if let depthScale = try number(
      args, "depth-scale", Double.init, valid: { (0.5...2).contains($0) }, "a number in 0.5...2")
    {
      guard scene.sensors.phone != nil else {
        throw Arguments.UsageError("--depth-scale needs a phone profile (--profile phone)")
      }
      scene.sensors.phone?.depthScale = depthScale
    }
    try validate(scene, changedBy: args, scenePath: scenePath)
    let start = Date()
    let renderer = try SceneRenderer(scene: scene, source: scenePath)
    let setupSeconds = Date().timeIntervalSince(start)

    if bench {
      return runBench(
        renderer, frames: options.maxFrames ?? min(scene.frameCount, 30), setupSeconds: setupSeconds)
    }
    let folder = args.positional[1]
    try prepare(folder: folder, overwrite: args.flag("overwrite"))
    let progress = ProgressBar(label: "generate", total: min(scene.frameCount, options.maxFrames ?? .max))
    let summary: GenerationSummary
    do {
      summary = try SessionGenerator.generate(renderer, to: folder, options: options) { done, _ in
        progress.update(done)
      }
    } catch {
      // No half recording: `prepare` left the folder new or empty of these entries.
      for entry in recordingEntries { try? FileManager.default.removeItem(atPath: folder + "/" + entry) }
      throw error
    }
    progress.finish()
    var written = summary
    if options.record3DArchive { written.folder += "/recording.r3d" }
    print(report(written, scene: scene, scenePath: scenePath))
    let median = summary.renderMilliseconds.sorted()[summary.renderMilliseconds.count / 2]
    printError(
      String(
        format: "timing: textures %.0f ms; rendering %.1f ms per frame (median)", setupSeconds * 1000, median)
    )
    return 0
  }

  /// Checks the scene again after the options changed it, blaming the options (not the scene's keys)
  /// for what they broke: `--scale 1e-6` leaves no pixels.
  static func validate(_ scene: SyntheticScene, changedBy args: Arguments, scenePath: String) throws {
    do {
      try scene.validate(source: scenePath)
    } catch {
      let given = ["scale", "fps", "duration", "depth-noise"].compactMap { name in
        args.value(name).map { "--\(name) \($0)" }
      }
      let what = error.key.isEmpty ? error.message : "\(error.key) \(error.message)"
      throw Arguments.UsageError("\(given.joined(separator: " ")): with these options \(scenePath)'s \(what)")
    }
  }

  /// Renders frames without writing them and prints the median time per frame.
  static func runBench(_ renderer: SceneRenderer, frames: Int, setupSeconds: Double) -> Int32 {
    let scene = renderer.scene
    let count = min(frames, scene.frameCount)
    var milliseconds: [Double] = []
    var cpuMilliseconds: [Double] = []
    var checksum: UInt64 = 0
    for index in 0..<count {
      let start = Date()
      let cpuStart = processCPUSeconds()
      let frame = renderer.render(frame: index)
      cpuMilliseconds.append((processCPUSeconds() - cpuStart) * 1000)
      milliseconds.append(Date().timeIntervalSince(start) * 1000)
      checksum = frame.image.pixels.reduce(checksum) { ($0 &* 31) &+ UInt64($1) }
    }
    milliseconds.sort()
    cpuMilliseconds.sort()
    print(
      String(
        format:
          "render: %dx%d, %d supersamples, %d surfaces: median %.1f ms per frame (min %.1f, max %.1f, %d frames)",
        scene.camera.width, scene.camera.height, scene.render.supersamples, scene.surfaces.count,
        milliseconds[count / 2], milliseconds[0], milliseconds[count - 1], count))
    print(
      String(
        format:
          "cpu: median %.1f ms per frame over all threads (%d cores; on idle cores the wall time is about this / cores)",
        cpuMilliseconds[count / 2], ProcessInfo.processInfo.activeProcessorCount))
    print(String(format: "textures: %.0f ms (once per scene)", setupSeconds * 1000))
    print(String(format: "image checksum: %016llx", checksum))
    return 0
  }

  /// CPU time of the whole process (all threads) in seconds.
  static func processCPUSeconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) * 1e-9
  }

  /// Makes sure `folder` can receive a new recording.
  static func prepare(folder: String, overwrite: Bool) throws {
    let manager = FileManager.default
    var isDirectory: ObjCBool = false
    guard manager.fileExists(atPath: folder, isDirectory: &isDirectory) else { return }
    guard isDirectory.boolValue else { throw RecordingError(file: folder, "is a file, expected a folder") }
    let contents = (try? manager.contentsOfDirectory(atPath: folder)) ?? []
    guard !contents.isEmpty else { return }
    guard overwrite else {
      throw RecordingError(file: folder, "is not empty (pass --overwrite to replace the recording in it)")
    }
    guard layoutMarkers.contains(where: contents.contains) else {
      throw RecordingError(file: folder, "is not empty and holds no recording; refusing to overwrite it")
    }
    for entry in recordingEntries where contents.contains(entry) {
      do {
        try manager.removeItem(atPath: folder + "/" + entry)
      } catch {
        throw RecordingError(file: folder + "/" + entry, "cannot be removed: \(error.localizedDescription)")
      }
    }
  }

  /// The summary printed on stdout; deterministic for a given scene and options.
  static func report(_ summary: GenerationSummary, scene: SyntheticScene, scenePath: String) -> String {
    let k = scene.camera
    var sensors = ["colour"]
    if scene.sensors.depth != nil { sensors.append("depth") }
    if let imu = scene.sensors.imu {
      sensors.append(String(format: "IMU %g Hz (%d samples)", imu.rate, summary.imuSamples))
    }
    let planes = summary.planes.map { plane in
      "\(plane.id) \(plane.label.rawValue) \(plane.alignment.rawValue) "
        + String(format: "%.1f s", plane.visibility.secondsSeen)
    }
    return [
      "generated: \(summary.folder) (\(summary.format.rawValue))",
      "scene: \(scenePath) '\(scene.name)', seed \(scene.seed)",
      String(
        format: "camera: %dx%d, fx %g fy %g cx %g cy %g, %g fps", k.width, k.height, k.fx, k.fy, k.cx, k.cy,
        scene.frameRate),
      String(format: "frames: %d over %.3f s", summary.frames, summary.lastTimestamp),
      "sensors: " + sensors.joined(separator: ", "),
      "planes: \(summary.planes.count) (id label alignment seconds-seen: " + planes.joined(separator: "; ")
        + ")",
      "taps: \(summary.taps)",
    ].joined(separator: "\n")
  }

  /// The value of `--name` parsed by `parse` and checked by `valid`, or nil when not given.
  static func number<T>(
    _ args: Arguments, _ name: String, _ parse: (String) -> T?, valid: (T) -> Bool, _ expected: String
  ) throws -> T? {
    guard let text = args.value(name) else { return nil }
    guard let value = parse(text), valid(value) else {
      throw Arguments.UsageError("--\(name) must be \(expected), got '\(text)'")
    }
    return value
  }
}
