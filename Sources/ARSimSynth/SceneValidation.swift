import ARSim
import ARSimMath
import Foundation

/// A problem with a scene file: the file, the key (a path such as `surfaces[2].polygon`) and what is
/// wrong. The description is one line, `FILE: KEY: message`.
public struct SceneError: Error, CustomStringConvertible, Equatable, Sendable {
  /// The scene file (or another name for where the scene came from).
  public var file: String
  /// The offending key as a path into the JSON, e.g. `trajectory.keyframes[0].time`; empty when the
  /// problem is with the file as a whole.
  public var key: String
  /// What is wrong, in plain words.
  public var message: String

  /// Creates an error. Control characters in any part (a key read from a damaged file can hold a line
  /// break) are escaped, so the error stays one line.
  public init(file: String, key: String, _ message: String) {
    self.file = file.escapingControlCharacters
    self.key = key.escapingControlCharacters
    self.message = message.escapingControlCharacters
  }

  public var description: String { key.isEmpty ? "\(file): \(message)" : "\(file): \(key): \(message)" }
}

extension SyntheticScene {
  /// The longest scene accepted, seconds (an hour).
  public static let maxDuration = 3600.0

  /// Reads and validates a scene file.
  /// - Throws: ``SceneError`` naming `path`, the key and the problem.
  public static func load(path: String) throws(SceneError) -> SyntheticScene {
    let data: [UInt8]
    do {
      data = try InputFile.contents(path)
    } catch {
      throw SceneError(file: error.file, key: "", error.message)
    }
    return try decode(Data(data), source: path)
  }

  /// Decodes and validates a scene from JSON; `source` names it in errors. Unknown keys are errors.
  /// - Throws: ``SceneError`` naming `source`, the key and the problem.
  public static func decode(_ data: Data, source: String) throws(SceneError) -> SyntheticScene {
    do {
      try InputFile.checkText([UInt8](data.prefix(64))[...], path: source)
      try StrictJSON.check([UInt8](data), path: source)
    } catch {
      throw SceneError(
        file: source, key: "", error.line.map { "line \($0): " + error.message } ?? error.message)
    }
    let scene: SyntheticScene
    do {
      scene = try JSONDecoder().decode(SyntheticScene.self, from: data)
    } catch let DecodingError.keyNotFound(key, context) {
      throw SceneError(file: source, key: SceneError.keyPath(context.codingPath + [key]), "missing")
    } catch let DecodingError.typeMismatch(type, context) {
      throw SceneError(
        file: source, key: SceneError.keyPath(context.codingPath), "expected \(typeName(type))")
    } catch let DecodingError.valueNotFound(type, context) {
      throw SceneError(
        file: source, key: SceneError.keyPath(context.codingPath), "expected \(typeName(type)), found none")
    } catch let DecodingError.dataCorrupted(context) {
      if context.codingPath.isEmpty {
        throw SceneError(file: source, key: "", "not valid JSON")
      }
      throw SceneError(file: source, key: SceneError.keyPath(context.codingPath), context.debugDescription)
    } catch {
      throw SceneError(file: source, key: "", "not valid JSON")
    }
    // Keys the scene does not know are typos, not options: the encoded scene has every known key.
    if let given = try? JSONSerialization.jsonObject(with: data),
      let encoded = try? JSONEncoder().encode(scene),
      let known = try? JSONSerialization.jsonObject(with: encoded),
      let key = unknownKey(given, known, path: "")
    {
      throw SceneError(file: source, key: key, "unknown key")
    }
    try scene.validate(source: source)
    return scene
  }

  /// The path of the first key of `given` that `known` lacks (ignoring keys whose value is null).
  private static func unknownKey(_ given: Any, _ known: Any, path: String) -> String? {
    if let given = given as? [String: Any], let known = known as? [String: Any] {
      for key in given.keys.sorted() where !(given[key] is NSNull) {
        let child = path.isEmpty ? key : path + "." + key
        guard let value = known[key] else { return child }
        if let found = unknownKey(given[key]!, value, path: child) { return found }
      }
    } else if let given = given as? [Any], let known = known as? [Any], given.count == known.count {
      for (i, (a, b)) in zip(given, known).enumerated() {
        if let found = unknownKey(a, b, path: path + "[\(i)]") { return found }
      }
    }
    return nil
  }

  /// Checks every value; ``SceneRenderer`` requires a scene that passes.
  /// - Throws: ``SceneError`` naming `source`, the first offending key and the problem.
  public func validate(source: String) throws(SceneError) {
    let check = Checker(file: source)
    // The size first: the intrinsics' checks are relative to it.
    let maxSide = ImageCodec.maxDimension
    try check.that(
      camera.width <= maxSide, "camera.width", "must be at most \(maxSide) pixels, got \(camera.width)")
    try check.that(
      camera.height <= maxSide, "camera.height", "must be at most \(maxSide) pixels, got \(camera.height)")
    try check.that(
      camera.width * camera.height <= ImageCodec.maxPixels, "camera",
      "\(camera.width)x\(camera.height) is more than \(ImageCodec.maxPixels) pixels")
    do {
      _ = try camera.validated(source: source)
    } catch {
      throw SceneError(file: source, key: "camera", error.message)
    }
    try check.range(frameRate, 1...1000, "frameRate")
    try check.range(duration, 1e-6...Self.maxDuration, "duration")
    try check.colour(background, "background")
    try check.nonNegative(lighting.ambient, "lighting.ambient")
    try check.nonNegative(lighting.diffuse, "lighting.diffuse")
    try check.direction(lighting.direction, "lighting.direction")

    var materialNames = Set<String>()
    for (i, material) in materials.enumerated() {
      let key = "materials[\(i)]"
      try check.that(!material.name.isEmpty, key + ".name", "must not be empty")
      try check.that(
        materialNames.insert(material.name).inserted, key + ".name", "'\(material.name)' is used twice")
      let needed = material.type == .paint || material.type == .deadLeaves ? 1 : 2
      if let colors = material.colors {
        try check.that(
          colors.count >= needed, key + ".colors",
          "\(material.type.rawValue) needs at least \(needed) colours")
        for (j, colour) in colors.enumerated() { try check.colour(colour, key + ".colors[\(j)]") }
      }
      if let scale = material.scale { try check.range(scale, 0.001...100, key + ".scale") }
      if let contrast = material.contrast { try check.range(contrast, 0...1, key + ".contrast") }
      if let octaves = material.octaves {
        try check.that((1...12).contains(octaves), key + ".octaves", "must be 1...12")
      }
      if let period = material.period { try check.range(period, 0.05...64, key + ".period") }
      if let density = material.density {
        try check.positive(density, key + ".density")
        let strokes = density * material.texturePeriod * material.texturePeriod
        try check.that(
          strokes <= 1e6, key + ".density",
          "\(density) per square metre gives \(strokes) strokes per texture period (at most 1e6)")
      }
      if let width = material.lineWidth {
        try check.range(width, 1e-4...material.texturePeriod, key + ".lineWidth")
      }
      if material.type == .tiles {
        try check.that(
          material.tileLineWidth < material.patternScale / 2, key + ".lineWidth",
          "must be less than half the tile size")
      }
    }

    try check.that(!surfaces.isEmpty, "surfaces", "needs at least one surface")
    var ids = Set<Int>()
    for (i, surface) in surfaces.enumerated() {
      let key = "surfaces[\(i)]"
      try check.that(ids.insert(surface.id).inserted, key + ".id", "\(surface.id) is used twice")
      try check.that(
        materialNames.contains(surface.material), key + ".material",
        "no material is named '\(surface.material)'")
      try check.that(
        (surface.rectangle == nil) != (surface.polygon == nil), key,
        "needs exactly one of 'rectangle' and 'polygon'")
      _ = try SurfaceGeometry(surface, check: check, key: key)
    }

    let keyframes = trajectory.keyframes
    try check.that(keyframes.count >= 2, "trajectory.keyframes", "needs at least two keyframes")
    for (i, keyframe) in keyframes.enumerated() {
      let key = "trajectory.keyframes[\(i)]"
      try check.finite(keyframe.time, key + ".time")
      if i > 0 {
        try check.that(
          keyframe.time > keyframes[i - 1].time, key + ".time",
          "\(keyframe.time) is not after the previous keyframe's")
      }
      try check.finite(keyframe.position, key + ".position")
      try check.that(
        (keyframe.lookAt == nil) != (keyframe.orientation == nil), key,
        "needs exactly one of 'lookAt' and 'orientation'")
      if let target = keyframe.lookAt {
        try check.finite(target, key + ".lookAt")
        let forward = target - keyframe.position
        try check.that(simd_length(forward) > 1e-6, key + ".lookAt", "is the camera position")
        try check.that(
          simd_length(simd_cross(simd_normalize(forward), SIMD3(0, 1, 0))) > 0.02, key + ".lookAt",
          "looks straight up or down (the image's up direction is undefined)")
      }
      if let q = keyframe.orientation {
        try check.that(
          q.x.isFinite && q.y.isFinite && q.z.isFinite && q.w.isFinite, key + ".orientation", "must be finite"
        )
        try check.that(
          simd_length(q) > 1e-9, key + ".orientation", "must be a non-zero quaternion [qx, qy, qz, qw]")
      }
    }
    try check.that(keyframes[0].time <= 1e-9, "trajectory.keyframes[0].time", "must be 0 or earlier")
    try check.that(
      keyframes[keyframes.count - 1].time >= duration - 1e-9,
      "trajectory.keyframes[\(keyframes.count - 1)].time",
      "must be at or after the duration (\(duration) s)")
    if let shake = trajectory.shake {
      try check.nonNegative(shake.position, "trajectory.shake.position")
      try check.nonNegative(shake.rotation, "trajectory.shake.rotation")
      try check.that(!shake.frequencies.isEmpty, "trajectory.shake.frequencies", "must not be empty")
      for (i, f) in shake.frequencies.enumerated() {
        try check.range(f, 1e-6...1000, "trajectory.shake.frequencies[\(i)]")
      }
    }

    try check.nonNegative(sensors.imageNoise, "sensors.imageNoise")
    try check.nonNegative(sensors.exposureTime, "sensors.exposureTime")
    try check.that(
      sensors.exposureTime < 1 / frameRate, "sensors.exposureTime", "must be shorter than a frame interval")
    try check.range(sensors.exposureDrift, 0...0.9, "sensors.exposureDrift")
    try check.positive(sensors.exposureDriftPeriod, "sensors.exposureDriftPeriod")
    for (i, stretch) in sensors.darkStretches.enumerated() {
      let key = "sensors.darkStretches[\(i)]"
      try check.finite(stretch.start, key + ".start")
      try check.that(stretch.end.isFinite && stretch.end > stretch.start, key + ".end", "must be after start")
      try check.range(stretch.gain, 0...1, key + ".gain")
      try check.nonNegative(stretch.ramp, key + ".ramp")
    }
    if let depth = sensors.depth {
      try check.nonNegative(depth.noise, "sensors.depth.noise")
      try check.range(depth.holes, 0...0.9, "sensors.depth.holes")
      try check.range(depth.holeSize, 0.001...0.5, "sensors.depth.holeSize")
      try check.range(depth.maxRange, 0.01...1000, "sensors.depth.maxRange")
    }
    if let imu = sensors.imu {
      try check.range(imu.rate, 100...10_000, "sensors.imu.rate")
      try check.nonNegative(imu.accelerometerNoise, "sensors.imu.accelerometerNoise")
      try check.nonNegative(imu.gyroNoise, "sensors.imu.gyroNoise")
      try check.finite(imu.accelerometerBias, "sensors.imu.accelerometerBias")
      try check.finite(imu.gyroBias, "sensors.imu.gyroBias")
    }
    if let phone = sensors.phone {
      try phone.validate(check, frameRate: frameRate)
    }
    try check.that((1...16).contains(render.supersamples), "render.supersamples", "must be 1...16")
    try check.range(render.texelsPerMetre, 16...2048, "render.texelsPerMetre")
    try check.range(render.tapInterval, 0.01...Self.maxDuration, "render.tapInterval")
  }

  private static func typeName(_ type: Any.Type) -> String {
    switch type {
    case is Double.Type, is Float.Type: "a number"
    case is Int.Type, is UInt64.Type: "an integer"
    case is String.Type: "a string"
    case is Bool.Type: "true or false"
    default:
      String(describing: type).hasPrefix("Array") || String(describing: type).hasPrefix("SIMD")
        ? "an array" : "an object"
    }
  }
}

/// Validation helpers that throw ``SceneError`` naming the key.
struct Checker {
  let file: String

  func that(_ condition: Bool, _ key: String, _ message: @autoclosure () -> String) throws(SceneError) {
    if !condition { throw SceneError(file: file, key: key, message()) }
  }

  /// The largest coordinate or length accepted, metres: beyond it single-precision geometry is meaningless.
  static let maxCoordinate = 1e6

  func finite(_ value: Double, _ key: String) throws(SceneError) {
    try that(value.isFinite, key, "must be a finite number, got \(value)")
  }

  /// Three finite numbers of magnitude at most ``maxCoordinate``.
  func finite(_ value: SIMD3<Double>, _ key: String) throws(SceneError) {
    let bound = Self.maxCoordinate
    try that(
      [value.x, value.y, value.z].allSatisfy { $0.isFinite && abs($0) <= bound }, key,
      "must be three finite numbers of magnitude at most \(bound)")
  }

  /// A finite number of magnitude at most ``maxCoordinate``.
  func coordinate(_ value: Double, _ key: String) throws(SceneError) {
    try that(
      value.isFinite && abs(value) <= Self.maxCoordinate, key,
      "must be a finite number of magnitude at most \(Self.maxCoordinate), got \(value)")
  }

  /// A point in metres (see ``finite(_:_:)-(SIMD3<Double>,_)``).
  func point(_ value: SIMD3<Double>, _ key: String) throws(SceneError) { try finite(value, key) }

  /// A unit vector (length within 1e-3 of 1).
  func unit(_ value: SIMD3<Double>, _ key: String) throws(SceneError) {
    try finite(value, key)
    try that(
      abs(simd_length(value) - 1) < 1e-3, key, "must be a unit vector, got length \(simd_length(value))")
  }

  func positive(_ value: Double, _ key: String, unit: String = "") throws(SceneError) {
    try that(
      value.isFinite && value > 0 && value <= Self.maxCoordinate, key,
      "must be a positive number\(unit) of at most \(Self.maxCoordinate), got \(value)")
  }

  func nonNegative(_ value: Double, _ key: String) throws(SceneError) {
    try that(value.isFinite && value >= 0, key, "must be zero or positive, got \(value)")
  }

  func range(_ value: Double, _ range: ClosedRange<Double>, _ key: String) throws(SceneError) {
    try that(range.contains(value), key, "must be in \(range.lowerBound)...\(range.upperBound), got \(value)")
  }

  func colour(_ value: SIMD3<Double>, _ key: String) throws(SceneError) {
    try that(
      (0...1).contains(value.x) && (0...1).contains(value.y) && (0...1).contains(value.z), key,
      "must be three numbers in 0...1 (linear RGB)")
  }

  func direction(_ value: SIMD3<Double>, _ key: String) throws(SceneError) {
    try finite(value, key)
    try that(simd_length(value) > 1e-6, key, "must not be the zero vector (length at least 1e-6)")
  }
}
