import Foundation

/// What Pixar's USD says of a model fixture (`NAME.expected.json`, written by
/// Tools/make_usd_fixtures.py): the stage metadata, the prims in traversal order and the world bounds
/// of each gprim from `UsdGeom.BBoxCache`, in metres and y-up.
public struct ExpectedAsset: Decodable {
  /// An axis-aligned box, metres.
  public struct Bounds: Decodable {
    public var min: [Double]
    public var max: [Double]
  }
  /// One prim.
  public struct Prim: Decodable {
    public var path: String
    public var name: String
    public var type: String
    public var children: [String]
    /// Points of a mesh.
    public var vertices: Int?
    /// Faces of a mesh.
    public var faces: Int?
    /// World bounds of a gprim.
    public var worldBounds: Bounds?
    /// Whether an attribute has more than one time sample.
    public var animated: Bool?
  }
  /// A gprim below an animated prim at one time (seconds from the start).
  public struct AnimatedBounds: Decodable {
    public var path: String
    public var time: Double
    public var worldBounds: Bounds
  }
  public var metersPerUnit: Double
  public var upAxis: String
  public var roots: [String]
  public var prims: [Prim]
  public var worldBounds: Bounds
  public var animatedBounds: [AnimatedBounds]
  public var startTimeCode: Double
  public var endTimeCode: Double
  public var timeCodesPerSecond: Double

  /// The expectations in the JSON file at `url`.
  public static func load(_ url: URL) throws -> ExpectedAsset {
    try JSONDecoder().decode(ExpectedAsset.self, from: Data(contentsOf: url))
  }

  /// Whether `min`/`max` (metres) lie within `tolerance` of `bounds` on every axis.
  public static func close(
    min: SIMD3<Double>, max: SIMD3<Double>, _ bounds: Bounds, tolerance: Double = 1e-5
  ) -> Bool {
    (0..<3).allSatisfy {
      abs(min[$0] - bounds.min[$0]) <= tolerance && abs(max[$0] - bounds.max[$0]) <= tolerance
    }
  }
}
