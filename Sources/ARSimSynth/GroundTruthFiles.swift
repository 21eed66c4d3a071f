import ARSim
import ARSimMath
import Foundation

// Reading ground-truth files with every value checked: a damaged `planes.json` or `taps.txt` is a
// one-line error naming the file and the key or line, never a silently different score.

extension GroundTruthPlanesFile {
  /// Reads and checks `planes.json`: format `arsim-planes` version 1, a unit gravity, and for every
  /// plane a unique id, a finite unit normal, a finite offset, a polygon of at least three finite
  /// vertices and a positive area.
  /// - Throws: ``SceneError`` naming the file, the key and the problem.
  public static func load(path: String) throws(SceneError) -> GroundTruthPlanesFile {
    let data: [UInt8]
    do {
      data = try StrictJSON.contents(path)
    } catch {
      throw SceneError(
        file: error.file, key: "", error.line.map { "line \($0): " + error.message } ?? error.message)
    }
    let file: GroundTruthPlanesFile
    do {
      file = try JSONDecoder().decode(GroundTruthPlanesFile.self, from: Data(data))
    } catch {
      throw SceneError(
        file: path, key: SceneError.keyPath(of: error), "not a planes file (\(SceneError.problem(of: error)))"
      )
    }
    try file.validate(source: path)
    return file
  }

  /// Checks every value (see ``load(path:)``).
  /// - Throws: ``SceneError`` naming `source`, the first offending key and the problem.
  public func validate(source: String) throws(SceneError) {
    let check = Checker(file: source)
    try check.that(format == "arsim-planes", "format", "is '\(format)', expected 'arsim-planes'")
    try check.that(version == 1, "version", "\(version) is not supported (this build reads 1)")
    try check.unit(gravity, "gravity")
    var ids = Set<Int>()
    for (i, plane) in planes.enumerated() {
      let key = "planes[\(i)]"
      try check.that(ids.insert(plane.id).inserted, key + ".id", "\(plane.id) is used twice")
      try check.unit(plane.normal, key + ".normal")
      try check.coordinate(plane.offset, key + ".offset")
      try check.that(
        plane.polygon.count >= 3, key + ".polygon", "needs at least 3 vertices, got \(plane.polygon.count)")
      for (j, vertex) in plane.polygon.enumerated() { try check.point(vertex, key + ".polygon[\(j)]") }
      try check.point(plane.center, key + ".center")
      try check.that(
        plane.area.isFinite && plane.area > 0, key + ".area",
        "must be a positive number (square metres), got \(plane.area)")
      if let first = plane.visibility.firstSeen { try check.finite(first, key + ".visibility.firstSeen") }
      try check.nonNegative(plane.visibility.secondsSeen, key + ".visibility.secondsSeen")
      try check.that(plane.visibility.maxPixels >= 0, key + ".visibility.maxPixels", "must not be negative")
    }
  }
}

extension GroundTruthTap {
  /// Reads `taps.txt`: `timestamp u v frame wx wy wz planeId` lines after `#` comments, in time order
  /// (timestamps and frames never decreasing), with finite values.
  /// - Throws: ``RecordingError`` naming the file, the line and the problem.
  public static func load(path: String) throws(RecordingError) -> [GroundTruthTap] {
    let reader = try LineReader(path: path)
    var taps: [GroundTruthTap] = []
    while let fields = try reader.nextRecord() {
      guard fields.count == 8 else {
        throw reader.error("expected 'timestamp u v frame wx wy wz planeId', got \(fields.count) fields")
      }
      let t = try reader.timestamp(fields[0])
      let u = try reader.number(fields[1], "u", within: 1e6)
      let v = try reader.number(fields[2], "v", within: 1e6)
      var world = SIMD3<Double>()
      for (k, name) in ["wx", "wy", "wz"].enumerated() {
        world[k] = try reader.number(fields[4 + k], name, within: LineReader.maxCoordinate)
      }
      guard let frame = Int(fields[3]), frame >= 0 else {
        throw reader.error("frame '\(fields[3])' is not a frame index (an integer from 0)")
      }
      guard let planeId = Int(fields[7]) else {
        throw reader.error("planeId '\(fields[7])' is not an integer")
      }
      if let last = taps.last {
        guard t >= last.timestamp, frame >= last.frame else {
          throw reader.error(
            "tap at \(t) s (frame \(frame)) comes before the previous one at \(last.timestamp) s (frame \(last.frame))"
          )
        }
      }
      taps.append(GroundTruthTap(timestamp: t, u: u, v: v, frame: frame, world: world, planeId: planeId))
    }
    return taps
  }
}

extension SceneError {
  /// The key path a decoding error points at, as the scene errors spell it.
  static func keyPath(of error: any Error) -> String {
    switch error {
    case DecodingError.keyNotFound(let key, let context): keyPath(context.codingPath + [key])
    case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context),
      DecodingError.dataCorrupted(let context):
      keyPath(context.codingPath)
    default: ""
    }
  }

  /// A decoding error in words.
  static func problem(of error: any Error) -> String {
    switch error {
    case DecodingError.keyNotFound: "missing"
    case DecodingError.typeMismatch: "wrong type"
    case DecodingError.valueNotFound: "null"
    case DecodingError.dataCorrupted(let context): context.debugDescription
    default: "not valid"
    }
  }

  /// `surfaces[2].polygon`-style text of a coding path.
  static func keyPath(_ path: [any CodingKey]) -> String {
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
}
