import ARSimMath
import Foundation
import Testing

@testable import ARSimAssets

/// The fixtures made by Tools/make_usd_fixtures.py with Pixar's USD library, and what USD says of them.
enum Fixtures {
  static func url(_ name: String) -> URL {
    Bundle.module.resourceURL!.appendingPathComponent("Fixtures").appendingPathComponent(name)
  }

  static func bytes(_ name: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: url(name))) }

  struct Expected: Decodable {
    struct Bounds: Decodable {
      var min: [Double]
      var max: [Double]
    }
    struct Prim: Decodable {
      var path: String
      var name: String
      var type: String
      var children: [String]
      var vertices: Int?
      var faces: Int?
      var worldBounds: Bounds?
      var animated: Bool?
    }
    struct AnimatedBounds: Decodable {
      var path: String
      var time: Double
      var worldBounds: Bounds
    }
    var metersPerUnit: Double
    var upAxis: String
    var animatedBounds: [AnimatedBounds]
    var roots: [String]
    var prims: [Prim]
    var worldBounds: Bounds
    var startTimeCode: Double
    var endTimeCode: Double
    var timeCodesPerSecond: Double
  }

  static func expected(_ name: String) throws -> Expected {
    try JSONDecoder().decode(Expected.self, from: Data(contentsOf: url(name + ".expected.json")))
  }

  /// Every node with its world transform, depth first.
  static func worldNodes(_ asset: ModelAsset) -> [(node: AssetNode, world: simd_double4x4)] {
    var result: [(AssetNode, simd_double4x4)] = []
    func visit(_ node: AssetNode, _ parent: simd_double4x4) {
      let world = parent * node.transform
      result.append((node, world))
      for child in node.children { visit(child, world) }
    }
    for root in asset.roots { visit(root, .identity) }
    return result
  }
}

@Suite struct ModelAssetTests {
  static let loadable = ["scene.usda", "scene.usdc", "scene.usdz", "centimetres.usdz", "zup.usdz"]

  @Test(arguments: loadable)
  func matchesUSDsHierarchyCountsAndBounds(_ name: String) throws {
    let expected = try Fixtures.expected(name)
    let asset = try ModelAsset(contentsOf: Fixtures.url(name))
    #expect(asset.metersPerUnit == expected.metersPerUnit)
    #expect(asset.upAxis == expected.upAxis)
    #expect(asset.defaultPrim == "Scene")
    #expect(asset.roots.map(\.name) == expected.roots.filter { $0 != "_Template" })
    let nodes = Fixtures.worldNodes(asset)
    #expect(nodes.map(\.node.path) == expected.prims.map(\.path))
    var sceneMin = SIMD3(repeating: Double.infinity)
    var sceneMax = SIMD3(repeating: -Double.infinity)
    for ((node, world), prim) in zip(nodes, expected.prims) {
      #expect(node.name == prim.name)
      #expect(node.typeName == prim.type)
      #expect(node.children.map(\.name) == prim.children, "\(prim.path)")
      #expect(node.isAnimated == (prim.animated ?? false), "\(prim.path)")
      if let vertices = prim.vertices {
        #expect(node.geometry?.vertexCount == vertices, "\(prim.path)")
        #expect(node.geometry?.faceCount == prim.faces, "\(prim.path)")
      }
      guard let bounds = prim.worldBounds else {
        #expect(node.geometry == nil, "\(prim.path)")
        continue
      }
      let geometry = try #require(node.geometry, "\(prim.path)")
      let (low, high) = transformedBox(geometry.boundsMin, geometry.boundsMax, world)
      sceneMin = pointwiseMin(sceneMin, low)
      sceneMax = pointwiseMax(sceneMax, high)
      for axis in 0..<3 {
        #expect(abs(low[axis] - bounds.min[axis]) <= 1e-5, "\(name) \(prim.path) min[\(axis)]")
        #expect(abs(high[axis] - bounds.max[axis]) <= 1e-5, "\(name) \(prim.path) max[\(axis)]")
      }
    }
    for axis in 0..<3 {
      #expect(abs(sceneMin[axis] - expected.worldBounds.min[axis]) <= 1e-5, "\(name) scene min[\(axis)]")
      #expect(abs(sceneMax[axis] - expected.worldBounds.max[axis]) <= 1e-5, "\(name) scene max[\(axis)]")
    }
    let animation = try #require(asset.animations.first)
    #expect(asset.animations.count == 1)
    #expect(animation.primPaths == expected.prims.filter { $0.animated == true }.map(\.path))
    #expect(animation.name == AssetAnimation.defaultName)
    #expect(
      animation.duration == (expected.endTimeCode - expected.startTimeCode) / expected.timeCodesPerSecond)
  }

  /// The animated prim's keyframes at whole time codes move its meshes where USD's BBoxCache puts
  /// them at those times (the spinner turns a full turn and a bit: angles interpolate linearly).
  @Test(arguments: loadable)
  func keyframesMatchUSDsAnimatedBounds(_ name: String) throws {
    let expected = try Fixtures.expected(name)
    let asset = try ModelAsset(contentsOf: Fixtures.url(name))
    let nodes = Fixtures.worldNodes(asset)
    var checked = 0
    for sample in expected.animatedBounds {
      let (mesh, _) = try #require(nodes.first { $0.node.path == sample.path })
      let parentPath = String(sample.path[..<sample.path.lastIndex(of: "/")!])
      let (animated, _) = try #require(nodes.first { $0.node.path == parentPath })
      let grandparentPath = String(parentPath[..<parentPath.lastIndex(of: "/")!])
      let above = nodes.first { $0.node.path == grandparentPath }?.world ?? .identity
      #expect(animated.transformKeyframes.count == 49)  // time codes 0...48
      guard let keyframe = animated.transformKeyframes.first(where: { abs($0.time - sample.time) < 1e-12 })
      else {
        continue
      }
      let world = above * keyframe.transform * mesh.transform
      let geometry = try #require(mesh.geometry)
      let (low, high) = transformedBox(geometry.boundsMin, geometry.boundsMax, world)
      for axis in 0..<3 {
        #expect(
          abs(low[axis] - sample.worldBounds.min[axis]) <= 1e-5, "\(name) t=\(sample.time) min[\(axis)]")
        #expect(
          abs(high[axis] - sample.worldBounds.max[axis]) <= 1e-5, "\(name) t=\(sample.time) max[\(axis)]")
      }
      checked += 1
    }
    #expect(checked == 4)
  }

  /// USDA writes floats in their shortest decimal form, the crate keeps their bits: alike to 1e-7.
  @Test func theThreeEncodingsReadAlike() throws {
    let assets = try ["scene.usda", "scene.usdc", "scene.usdz"].map {
      try ModelAsset(contentsOf: Fixtures.url($0))
    }
    let nodes = assets.map { Fixtures.worldNodes($0) }
    for other in nodes.dropFirst() {
      #expect(other.map(\.node.path) == nodes[0].map(\.node.path))
      for (a, b) in zip(nodes[0], other) {
        #expect(a.node.geometry?.vertexCount == b.node.geometry?.vertexCount)
        #expect(a.node.geometry?.faceCount == b.node.geometry?.faceCount)
        let difference = (a.node.geometry?.boundsMin ?? .zero) - (b.node.geometry?.boundsMin ?? .zero)
        #expect((0..<3).allSatisfy { Swift.abs(difference[$0]) < 1e-7 }, "\(a.node.path)")
        for column in 0..<4 {
          let d: SIMD4<Double> = a.world[column] - b.world[column]
          #expect((0..<4).allSatisfy { Swift.abs(d[$0]) < 1e-7 }, "\(a.node.path)")
        }
      }
    }
  }
}
