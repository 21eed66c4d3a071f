import ARSimMath
import Foundation

/// USD's transform operations (`UsdGeomXformable`): `xformOpOrder` lists ops applied right to left
/// to a point (the first op is outermost), each `xformOp:TYPE[:suffix]`, optionally `!invert!`-ed,
/// after an optional leading `!resetXformStack!`.
enum XformOps {
  /// The time codes at which to sample the prim's transform ops, in increasing order: every time
  /// code with a sample, and every whole time code between the first and the last (so that a track
  /// interpolated between them follows USD's linear interpolation of angles, even past half a turn),
  /// unless the span is over 10 000 time codes.
  static func sampleTimes(_ attributes: [String: AttributeSpec]) -> [Double] {
    guard case .tokens(let order)? = attributes["xformOpOrder"]?.resolved else { return [] }
    var times = Set(
      order.flatMap { name in
        attributes[name.hasPrefix("!invert!") ? String(name.dropFirst(8)) : name]?.timeSamples.map(\.time)
          ?? []
      })
    if let first = times.min(), let last = times.max(), last - first <= 10_000 {
      for code in stride(from: first.rounded(.up), through: last, by: 1) { times.insert(code) }
    }
    return times.sorted()
  }

  /// The prim's local transform (stage units, column-major) and whether it resets the stack: at the
  /// default time (`time` nil: default values, else first samples), or at a time code (samples
  /// interpolated linearly, held before the first and after the last; default values without samples).
  static func transform(_ attributes: [String: AttributeSpec], at time: Double? = nil) throws -> (
    simd_double4x4, Bool
  ) {
    guard case .tokens(let order)? = attributes["xformOpOrder"]?.resolved else { return (.identity, false) }
    var matrix = simd_double4x4.identity
    var resets = false
    for entry in order {
      if entry == "!resetXformStack!" {
        matrix = .identity
        resets = true
        continue
      }
      let inverted = entry.hasPrefix("!invert!")
      let name = inverted ? String(entry.dropFirst("!invert!".count)) : entry
      guard let value = time.flatMap({ attributes[name]?.value(at: $0) }) ?? attributes[name]?.resolved else {
        throw FormatError("xformOpOrder names '\(name)', which has no value")
      }
      let op = try self.op(name, value)
      matrix = matrix * (inverted ? op.inverse : op)
    }
    return (matrix, resets)
  }

  private static func op(_ name: String, _ value: USDValue) throws -> simd_double4x4 {
    let parts = name.split(separator: ":")
    guard parts.count >= 2, parts[0] == "xformOp" else {
      throw FormatError("'\(name)' is not a transform op")
    }
    let type = String(parts[1])
    func vector(_ count: Int) throws -> [Double] {
      switch value {
      case .tuple(let v) where v.count == count && v.allSatisfy(\.isFinite): return v
      case .double(let v) where count == 1 && v.isFinite: return [v]
      case .int(let v) where count == 1: return [Double(v)]
      default: throw FormatError("'\(name)' needs \(count) finite number(s), has \(value)")
      }
    }
    switch type {
    case "translate":
      let v = try vector(3)
      var m = simd_double4x4.identity
      m.columns.3 = SIMD4(v[0], v[1], v[2], 1)
      return m
    case "scale":
      let v = try vector(3)
      return simd_double4x4(diagonal: SIMD4(v[0], v[1], v[2], 1))
    case "rotateX", "rotateY", "rotateZ":
      return rotation(axis: type.last!, degrees: try vector(1)[0])
    case "orient":
      let q = try vector(4)  // (real, i, j, k)
      let quaternion = simd_quatd(ix: q[1], iy: q[2], iz: q[3], r: q[0])
      guard quaternion.length > 0 else { throw FormatError("'\(name)' is a zero quaternion") }
      return simd_double4x4(quaternion.normalized)
    case "transform":
      let m = try vector(16)  // rows, translation in the last row: the transpose of ours
      return simd_double4x4(
        SIMD4(m[0], m[1], m[2], m[3]), SIMD4(m[4], m[5], m[6], m[7]), SIMD4(m[8], m[9], m[10], m[11]),
        SIMD4(m[12], m[13], m[14], m[15]))
    default:
      guard type.hasPrefix("rotate"), type.count == 9 else {
        throw FormatError("unknown transform op '\(name)'")
      }
      // rotateABC turns about A first, then B, then C: R = R_C · R_B · R_A.
      let v = try vector(3)
      let axes = Array(type.dropFirst(6))
      guard Set(axes) == ["X", "Y", "Z"] else { throw FormatError("unknown transform op '\(name)'") }
      let angle: [Character: Double] = [axes[0]: v[0], axes[1]: v[1], axes[2]: v[2]]
      return rotation(axis: axes[2], degrees: angle[axes[2]]!)
        * rotation(axis: axes[1], degrees: angle[axes[1]]!)
        * rotation(axis: axes[0], degrees: angle[axes[0]]!)
    }
  }

  private static func rotation(axis: Character, degrees: Double) -> simd_double4x4 {
    let a = degrees * .pi / 180
    let (c, s) = (cos(a), sin(a))
    switch axis {
    case "X":
      return simd_double4x4(rows: [
        SIMD4(1, 0, 0, 0), SIMD4(0, c, -s, 0), SIMD4(0, s, c, 0), SIMD4(0, 0, 0, 1),
      ])
    case "Y":
      return simd_double4x4(rows: [
        SIMD4(c, 0, s, 0), SIMD4(0, 1, 0, 0), SIMD4(-s, 0, c, 0), SIMD4(0, 0, 0, 1),
      ])
    default:
      return simd_double4x4(rows: [
        SIMD4(c, -s, 0, 0), SIMD4(s, c, 0, 0), SIMD4(0, 0, 1, 0), SIMD4(0, 0, 0, 1),
      ])
    }
  }
}

extension AttributeSpec {
  /// The value at time code `time`: the samples interpolated linearly (numbers and tuples; others
  /// held), held before the first and after the last; the default value without samples.
  func value(at time: Double) -> USDValue? {
    let samples = timeSamples.sorted { $0.time < $1.time }
    guard let first = samples.first, let last = samples.last else { return value }
    if time <= first.time { return first.value }
    if time >= last.time { return last.value }
    // No later sample: a time (or sample times) that is not a number, which no comparison orders.
    guard let next = samples.firstIndex(where: { $0.time > time }), next > 0 else { return last.value }
    let (a, b) = (samples[next - 1], samples[next])
    let t = (time - a.time) / (b.time - a.time)
    switch (a.value, b.value) {
    case (.double(let x), .double(let y)): return .double(x + (y - x) * t)
    case (.tuple(let x), .tuple(let y)) where x.count == y.count:
      return .tuple(zip(x, y).map { $0 + ($1 - $0) * t })
    default: return a.value
    }
  }
}
