import ARSimMath
import Foundation

/// One prim of a loaded model: its name, its type, its transform and its geometry.
public struct AssetNode: Sendable {
  /// The prim's name (the last element of ``path``).
  public var name: String
  /// The prim's absolute path in the stage, `/Scene/Table/Top`.
  public var path: String
  /// The prim's schema type (`Xform`, `Scope`, `Mesh`, `Cube`, ...), empty when untyped.
  public var typeName: String
  /// The transform from this prim's space to its parent's (`parentFromPrim`), metres, y-up,
  /// column-major (acting on column vectors). For a prim that resets the transform stack it still maps
  /// to the parent's space, so that the prim lands where USD puts it.
  public var transform: simd_double4x4
  /// Whether the prim's `xformOpOrder` starts with `!resetXformStack!` (ignores its parent's transform).
  public var resetsTransformStack: Bool
  /// The geometry of a gprim (`Mesh`, `Cube`, `Sphere`, `Cylinder`, `Cone`, `Capsule`, `Plane`).
  public var geometry: AssetGeometry?
  /// Whether one of the prim's attributes has more than one time sample.
  public var isAnimated: Bool
  /// The prim's ``transform`` at each time code its transform ops are sampled at, when there are more
  /// than one; empty otherwise. A parent's animation is not folded into a child that resets the stack.
  public var transformKeyframes: [AssetKeyframe]
  /// The child prims, in order.
  public var children: [AssetNode]
}

/// A prim's transform at one time.
public struct AssetKeyframe: Sendable, Equatable {
  /// Seconds from the stage's `startTimeCode` (time codes over `timeCodesPerSecond`).
  public var time: Double
  /// The transform to the parent's space then (as ``AssetNode/transform``).
  public var transform: simd_double4x4
}

/// The geometry of a gprim, in the prim's own space (metres, y-up).
public struct AssetGeometry: Sendable, Equatable {
  /// The prim's type: `Mesh` or an analytic shape (`Cube`, `Sphere`, ...).
  public var kind: String
  /// The mesh's points; 0 for analytic shapes, which have no vertices of their own.
  public var vertexCount: Int
  /// The mesh's faces (`faceVertexCounts`); 0 for analytic shapes.
  public var faceCount: Int
  /// The mesh's points, metres, in the prim's space; empty for analytic shapes.
  public var positions: [SIMD3<Float>] = []
  /// The number of vertices of each face (USD's `faceVertexCounts`); empty for analytic shapes.
  public var faceVertexCounts: [Int] = []
  /// The point index of each face vertex, face after face (USD's `faceVertexIndices`).
  public var faceVertexIndices: [Int] = []
  /// The corner with the smallest coordinates: of the points for a mesh (its `extent` when it has
  /// none), of the authored or computed `extent` for an analytic shape.
  public var boundsMin: SIMD3<Double>
  /// The corner with the largest coordinates.
  public var boundsMax: SIMD3<Double>
}

extension AssetNode {
  /// The node for a composed prim spec, or nil when the prim is not part of the scene (a class, an
  /// `over` without a definition, an inactive prim). `parentWorld` is the parent's world transform.
  static func make(
    _ spec: PrimSpec, parentPath: String, parentWorld: simd_double4x4, conversion: StageConversion,
    file: String, animated: inout [String]
  ) throws(AssetError) -> AssetNode? {
    let reparent = { (resets: Bool, local: simd_double4x4) in
      resets ? parentWorld.inverse * conversion.convert(local) : conversion.convert(local)
    }
    guard spec.specifier == .def, spec.active else { return nil }
    let path = parentPath + "/" + spec.name
    let local: simd_double4x4
    let resets: Bool
    let geometry: AssetGeometry?
    var keyframes: [AssetKeyframe] = []
    do {
      (local, resets) = try XformOps.transform(spec.attributes)
      geometry = try AssetGeometry.make(spec, conversion: conversion)
      let times = XformOps.sampleTimes(spec.attributes)
      if times.count > 1 {
        for time in times {
          let (sampled, sampledResets) = try XformOps.transform(spec.attributes, at: time)
          keyframes.append(
            AssetKeyframe(
              time: (time - conversion.startTimeCode) / conversion.timeCodesPerSecond,
              transform: reparent(sampledResets, sampled)))
        }
      }
    } catch let error as FormatError {
      throw AssetError(file: file, problem: "prim \(path): \(error.problem)")
    } catch {
      throw AssetError(file: file, problem: "prim \(path): \(error)")
    }
    let converted = conversion.convert(local)
    let world = resets ? converted : parentWorld * converted
    let isAnimated = spec.attributes.values.contains { $0.timeSamples.count > 1 }
    if isAnimated { animated.append(path) }
    var children: [AssetNode] = []
    for child in spec.children {
      if let node = try make(
        child, parentPath: path, parentWorld: world, conversion: conversion, file: file, animated: &animated)
      {
        children.append(node)
      }
    }
    return AssetNode(
      name: spec.name, path: path, typeName: spec.typeName,
      transform: reparent(resets, local), resetsTransformStack: resets, geometry: geometry,
      isAnimated: isAnimated, transformKeyframes: keyframes, children: children)
  }
}

extension AssetGeometry {
  /// The geometry of a gprim spec in stage units, converted; nil for other prims.
  static func make(_ spec: PrimSpec, conversion: StageConversion) throws -> AssetGeometry? {
    func number(_ name: String, _ fallback: Double) -> Double {
      spec.attributes[name]?.resolved?.number ?? fallback
    }
    var vertices = 0
    var faces = 0
    var positions: [SIMD3<Float>] = []
    var faceVertexCounts: [Int] = []
    var faceVertexIndices: [Int] = []
    func indices(_ values: [Double], _ name: String) throws -> [Int] {
      var result: [Int] = []
      result.reserveCapacity(values.count)
      for value in values {
        guard value >= 0, value < 2_147_483_648, value.rounded() == value else {
          throw FormatError("\(name) holds \(value), not a count or index")
        }
        result.append(Int(value))
      }
      return result
    }
    var bounds: (SIMD3<Double>, SIMD3<Double>)?
    if case .tuples(3, let values)? = spec.attributes["extent"]?.resolved, values.count == 6 {
      bounds = (SIMD3(values[0], values[1], values[2]), SIMD3(values[3], values[4], values[5]))
    }
    let axis = spec.attributes["axis"]?.resolved?.string ?? "Z"
    func along(_ radius: Double, _ half: Double) -> (SIMD3<Double>, SIMD3<Double>) {
      let v =
        axis == "X"
        ? SIMD3(half, radius, radius)
        : axis == "Y" ? SIMD3(radius, half, radius) : SIMD3(radius, radius, half)
      return (-v, v)
    }
    switch spec.typeName {
    case "Mesh":
      if case .tuples(3, let points)? = spec.attributes["points"]?.resolved, !points.isEmpty {
        vertices = points.count / 3
        var low = SIMD3(repeating: Double.infinity)
        var high = SIMD3(repeating: -Double.infinity)
        positions = [SIMD3<Float>](unsafeUninitializedCapacity: vertices) { buffer, initialized in
          points.withUnsafeBufferPointer { p in
            for i in 0..<vertices {
              let v = SIMD3(p[3 * i], p[3 * i + 1], p[3 * i + 2])
              low = pointwiseMin(low, v)
              high = pointwiseMax(high, v)
              buffer[i] = conversion.point(v)
            }
          }
          initialized = vertices
        }
        bounds = (low, high)
      }
      if case .numbers(let counts)? = spec.attributes["faceVertexCounts"]?.resolved {
        faceVertexCounts = try indices(counts, "faceVertexCounts")
      }
      if case .numbers(let values)? = spec.attributes["faceVertexIndices"]?.resolved {
        faceVertexIndices = try indices(values, "faceVertexIndices")
      }
      faces = faceVertexCounts.count
    case "Cube":
      let half = number("size", 2) / 2
      bounds = bounds ?? (SIMD3(repeating: -half), SIMD3(repeating: half))
    case "Sphere":
      let r = number("radius", 1)
      bounds = bounds ?? (SIMD3(repeating: -r), SIMD3(repeating: r))
    case "Cylinder", "Cone":
      bounds = bounds ?? along(number("radius", 1), number("height", 2) / 2)
    case "Capsule":
      let r = number("radius", 0.5)
      bounds = bounds ?? along(r, number("height", 1) / 2 + r)
    case "Plane":
      let w = number("width", 2) / 2
      let l = number("length", 2) / 2
      bounds =
        bounds
        ?? (axis == "X"
          ? (SIMD3(0, -l, -w), SIMD3(0, l, w))
          : axis == "Y" ? (SIMD3(-w, 0, -l), SIMD3(w, 0, l)) : (SIMD3(-w, -l, 0), SIMD3(w, l, 0)))
    default:
      return nil
    }
    guard let (low, high) = bounds else {
      return AssetGeometry(
        kind: spec.typeName, vertexCount: 0, faceCount: faces, boundsMin: .zero, boundsMax: .zero)
    }
    guard low.x <= high.x, low.y <= high.y, low.z <= high.z, (low - high).sum().isFinite else {
      throw FormatError("its extent \(low)...\(high) is not a box")
    }
    let (min, max) = transformedBox(low, high, conversion.matrix)
    return AssetGeometry(
      kind: spec.typeName, vertexCount: vertices, faceCount: faces, positions: positions,
      faceVertexCounts: faceVertexCounts, faceVertexIndices: faceVertexIndices, boundsMin: min, boundsMax: max
    )
  }
}

/// The axis-aligned box around the eight corners of `low...high` mapped by `matrix`.
func transformedBox(
  _ low: SIMD3<Double>, _ high: SIMD3<Double>, _ matrix: simd_double4x4
) -> (SIMD3<Double>, SIMD3<Double>) {
  var min = SIMD3(repeating: Double.infinity)
  var max = SIMD3(repeating: -Double.infinity)
  for corner in 0..<8 {
    let p = SIMD4(
      corner & 1 == 0 ? low.x : high.x, corner & 2 == 0 ? low.y : high.y, corner & 4 == 0 ? low.z : high.z, 1)
    let q = matrix * p
    min = pointwiseMin(min, SIMD3(q.x, q.y, q.z))
    max = pointwiseMax(max, SIMD3(q.x, q.y, q.z))
  }
  return (min, max)
}

extension AttributeSpec {
  /// The value ARSim uses: the default value, else the first time sample.
  var resolved: USDValue? { value ?? timeSamples.min { $0.time < $1.time }?.value }
}
