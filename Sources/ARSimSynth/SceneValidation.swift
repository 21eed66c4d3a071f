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

  /// Creates an error.
  public init(file: String, key: String, _ message: String) {
    self.file = file
    self.key = key
    self.message = message
  }

  public var description: String { key.isEmpty ? "\(file): \(message)" : "\(file): \(key): \(message)" }
}

extension SyntheticScene {
  /// Reads and validates a scene file.
  /// - Throws: ``SceneError`` naming `path`, the key and the problem.
  public static func load(path: String) throws(SceneError) -> SyntheticScene {
    guard let data = FileManager.default.contents(atPath: path) else {
      throw SceneError(file: path, key: "", "cannot be read (no such file?)")
    }
    return try decode(data, source: path)
  }

  /// Decodes and validates a scene from JSON; `source` names it in errors. Unknown keys are errors.
  /// - Throws: ``SceneError`` naming `source`, the key and the problem.
  public static func decode(_ data: Data, source: String) throws(SceneError) -> SyntheticScene {
    let scene: SyntheticScene
    do {
      scene = try JSONDecoder().decode(SyntheticScene.self, from: data)
    } catch let DecodingError.keyNotFound(key, context) {
      throw SceneError(file: source, key: keyPath(context.codingPath + [key]), "missing")
    } catch let DecodingError.typeMismatch(type, context) {
      throw SceneError(file: source, key: keyPath(context.codingPath), "expected \(typeName(type))")
    } catch let DecodingError.valueNotFound(type, context) {
      throw SceneError(
        file: source, key: keyPath(context.codingPath), "expected \(typeName(type)), found none")
    } catch let DecodingError.dataCorrupted(context) {
      if context.codingPath.isEmpty {
        throw SceneError(file: source, key: "", "not valid JSON")
      }
      throw SceneError(file: source, key: keyPath(context.codingPath), context.debugDescription)
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
    do {
      _ = try camera.validated(source: source)
    } catch {
      throw SceneError(file: source, key: "camera", error.message)
    }
    try check.positive(frameRate, "frameRate")
    try check.positive(duration, "duration", unit: " (seconds)")
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
      if let scale = material.scale { try check.positive(scale, key + ".scale", unit: " (metres)") }
      if let contrast = material.contrast { try check.range(contrast, 0...1, key + ".contrast") }
      if let octaves = material.octaves {
        try check.that((1...12).contains(octaves), key + ".octaves", "must be 1...12")
      }
      if let density = material.density { try check.positive(density, key + ".density") }
      if let width = material.lineWidth { try check.positive(width, key + ".lineWidth", unit: " (metres)") }
      if let period = material.period { try check.range(period, 0.05...64, key + ".period") }
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
        try check.positive(f, "trajectory.shake.frequencies[\(i)]")
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
      try check.positive(depth.maxRange, "sensors.depth.maxRange", unit: " (metres)")
    }
    if let imu = sensors.imu {
      try check.that(
        imu.rate.isFinite && imu.rate >= 100, "sensors.imu.rate", "must be at least 100 Hz, got \(imu.rate)")
      try check.nonNegative(imu.accelerometerNoise, "sensors.imu.accelerometerNoise")
      try check.nonNegative(imu.gyroNoise, "sensors.imu.gyroNoise")
      try check.finite(imu.accelerometerBias, "sensors.imu.accelerometerBias")
      try check.finite(imu.gyroBias, "sensors.imu.gyroBias")
    }
    try check.that((1...16).contains(render.supersamples), "render.supersamples", "must be 1...16")
    try check.range(render.texelsPerMetre, 16...2048, "render.texelsPerMetre")
    try check.positive(render.tapInterval, "render.tapInterval", unit: " (seconds)")
  }

  private static func keyPath(_ path: [any CodingKey]) -> String {
    var text = ""
    for key in path {
      if let index = key.intValue {
        text += "[\(index)]"
      } else {
        text += (text.isEmpty ? "" : ".") + key.stringValue
      }
    }
    return text
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

  func finite(_ value: Double, _ key: String) throws(SceneError) {
    try that(value.isFinite, key, "must be a finite number, got \(value)")
  }

  func finite(_ value: SIMD3<Double>, _ key: String) throws(SceneError) {
    try that(value.x.isFinite && value.y.isFinite && value.z.isFinite, key, "must be three finite numbers")
  }

  func positive(_ value: Double, _ key: String, unit: String = "") throws(SceneError) {
    try that(value.isFinite && value > 0, key, "must be a positive number\(unit), got \(value)")
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
    try that(simd_length(value) > 1e-9, key, "must not be the zero vector")
  }
}
