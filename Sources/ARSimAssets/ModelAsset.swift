import ARSimMath
import Foundation

/// A model file read into a hierarchy of prims, in metres and y-up: what ARSimScene turns into entities.
///
/// Reads `.usdz` (the root layer and the layers it references inside the archive), `.usda`, `.usdc`
/// and `.usd` (either encoding, by content; references resolve to files beside it). Apple's `.reality`
/// files are proprietary and are refused with an error saying so. Composition covers references and
/// `over`s; classes and `over`-only prims are not part of the scene (as USD's default traversal), nor
/// are inactive prims. Time-sampled values are taken at their first sample (the pose at the start of
/// the animation) unless a default value is authored.
public struct ModelAsset: Sendable {
  /// The file as given, for messages.
  public var file: String
  /// The prims under the stage's pseudo-root, in order.
  public var roots: [AssetNode]
  /// The stage's `metersPerUnit` (USD's fallback, 0.01, when not authored); already applied to
  /// every transform and bound.
  public var metersPerUnit: Double
  /// The stage's `upAxis`, `"Y"` or `"Z"` (USD's fallback `"Y"` when not authored); a Z-up stage is
  /// turned -90° about x so that its +z is +y in every transform and bound.
  public var upAxis: String
  /// The root layer's `defaultPrim`, if authored.
  public var defaultPrim: String?
  /// The stage's time-sampled animation, if any prim has more than one time sample.
  public var animations: [AssetAnimation]

  /// Reads the model at `url` (a file URL).
  public init(contentsOf url: URL) throws(AssetError) {
    let file = url.path
    guard let data = FileManager.default.contents(atPath: file) else {
      throw AssetError(file: file, problem: "cannot be read (no such file, or not readable)")
    }
    try self.init(bytes: [UInt8](data), file: file, fileExtension: url.pathExtension)
  }

  /// Reads a model from its bytes; `file` names it in errors (and locates referenced layers when it is
  /// a layer on disk), `fileExtension` (`usdz`, `usda`, `usdc`, `usd`, `reality`) says how to read it.
  public init(bytes: [UInt8], file: String, fileExtension: String) throws(AssetError) {
    self.file = file
    var source: LayerSource
    let rootKey: String
    switch fileExtension.lowercased() {
    case "usdz":
      let archive = try USDZArchive(bytes: bytes, file: file)
      rootKey = archive.entries[0].path
      guard ["usda", "usdc", "usd"].contains(rootKey.split(separator: ".").last?.lowercased() ?? "") else {
        throw AssetError(file: file, problem: "the first entry, '\(rootKey)', is not a USD layer")
      }
      source = LayerSource(archive: archive, file: file)
    case "usda", "usdc", "usd":
      source = LayerSource(file: file)
      rootKey = file
    case "reality":
      throw AssetError(
        file: file,
        problem: "Apple's .reality format is proprietary and cannot be read; export the model as .usdz")
    default:
      throw AssetError(
        file: file, problem: "unknown model format '.\(fileExtension)' (usdz, usda, usdc, usd)")
    }
    let layer =
      fileExtension.lowercased() == "usdz"
      ? try source.layer(rootKey, referencedFrom: nil) : try LayerSource.parse(bytes, file: file)
    var composer = Composer(source: source)
    var composed: [PrimSpec] = []
    for root in layer.roots {
      composed.append(try composer.compose(root, in: rootKey, chain: ["\(rootKey)</\(root.name)>"]))
    }
    metersPerUnit = layer.metadata["metersPerUnit"]?.number ?? 0.01
    upAxis = layer.metadata["upAxis"]?.string == "Z" ? "Z" : "Y"
    defaultPrim = layer.defaultPrim
    guard metersPerUnit > 0, metersPerUnit.isFinite else {
      throw AssetError(file: file, problem: "metersPerUnit \(metersPerUnit) is not a positive number")
    }
    let start = layer.metadata["startTimeCode"]?.number ?? 0
    let end = layer.metadata["endTimeCode"]?.number ?? start
    let rate = layer.metadata["timeCodesPerSecond"]?.number ?? 24
    guard rate > 0, rate.isFinite, start.isFinite, end.isFinite else {
      throw AssetError(
        file: file, problem: "the stage's time codes (\(start) to \(end) at \(rate) per second) are not valid"
      )
    }
    let conversion = StageConversion(
      metersPerUnit: metersPerUnit, zUp: upAxis == "Z", startTimeCode: start, timeCodesPerSecond: rate)
    var animated: [String] = []
    var nodes: [AssetNode] = []
    for spec in composed {
      if let node = try AssetNode.make(
        spec, parentPath: "", parentWorld: .identity, conversion: conversion, file: file, animated: &animated)
      {
        nodes.append(node)
      }
    }
    roots = nodes
    animations =
      animated.isEmpty
      ? []
      : [
        AssetAnimation(
          name: AssetAnimation.defaultName, startTimeCode: start, endTimeCode: end,
          duration: Swift.max(0, end - start) / rate, primPaths: animated)
      ]
  }

  /// Every node, depth first (parents before children).
  public var allNodes: [AssetNode] {
    var result: [AssetNode] = []
    func visit(_ node: AssetNode) {
      result.append(node)
      node.children.forEach(visit)
    }
    roots.forEach(visit)
    return result
  }
}

/// The stage's time-sampled animation, as RealityKit offers it in `availableAnimations`.
public struct AssetAnimation: Sendable, Equatable {
  /// The name RealityKit gives the animation of a USD stage's timeline.
  public static let defaultName = "default subtree animation"
  /// The animation's name.
  public var name: String
  /// First time code of the stage's timeline.
  public var startTimeCode: Double
  /// Last time code of the stage's timeline.
  public var endTimeCode: Double
  /// Length in seconds (time codes over `timeCodesPerSecond`).
  public var duration: Double
  /// Paths of the prims with time-sampled attributes (more than one sample).
  public var primPaths: [String]
}

/// The map from stage units and up axis to metres and y-up (`s·R`, `R` a -90° turn about x for Z-up),
/// and from time codes to seconds from the start.
struct StageConversion {
  let matrix: simd_double4x4
  let inverse: simd_double4x4
  let startTimeCode: Double
  let timeCodesPerSecond: Double
  private let scale: Double
  private let zUp: Bool

  init(metersPerUnit s: Double, zUp: Bool, startTimeCode: Double, timeCodesPerSecond: Double) {
    self.startTimeCode = startTimeCode
    self.timeCodesPerSecond = timeCodesPerSecond
    scale = s
    self.zUp = zUp
    // (x, y, z) -> (x, z, -y) turns a Z-up stage's +z into +y.
    let rotation =
      zUp
      ? simd_double4x4(rows: [SIMD4(1, 0, 0, 0), SIMD4(0, 0, 1, 0), SIMD4(0, -1, 0, 0), SIMD4(0, 0, 0, 1)])
      : .identity
    matrix = simd_double4x4(diagonal: SIMD4(s, s, s, 1)) * rotation
    inverse = rotation.transpose * simd_double4x4(diagonal: SIMD4(1 / s, 1 / s, 1 / s, 1))
  }

  /// A point in stage units, converted (`matrix` applied without a general matrix product).
  @inline(__always)
  func point(_ p: SIMD3<Double>) -> SIMD3<Float> {
    SIMD3<Float>(zUp ? SIMD3(p.x, p.z, -p.y) * scale : p * scale)
  }

  /// A transform between two stage-unit spaces, expressed between the converted spaces.
  func convert(_ transform: simd_double4x4) -> simd_double4x4 { matrix * transform * inverse }
}
