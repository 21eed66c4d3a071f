import Foundation

/// The space a world-tracking session mapped and the anchors placed in it, to save and to restore in a
/// later session (ARKit's `ARWorldMap`): get one from ``ARSession/getCurrentWorldMap(completionHandler:)``,
/// archive it with `NSKeyedArchiver.archivedData(withRootObject:requiringSecureCoding: true)` (or write
/// ARSim's file format with ``write(to:)``), and run a later session with
/// ``ARWorldTrackingConfiguration/initialWorldMap`` to resume in its world.
///
/// What ARSim keeps of the space: the tracker's keyframes (pose, ORB descriptors and the 3D point of
/// each described feature, in the map's world: metres, +y up), which relocalisation matches a new
/// view against. A map is tied to the scene it was made in; nothing checks that a later recording
/// shows the same scene (relocalisation simply never succeeds when it does not).
///
/// `@unchecked Sendable`: ``anchors`` may be replaced before the map is saved (as ARKit allows); do not
/// change it while another thread reads the map. Everything else is immutable.
public final class ARWorldMap: NSObject, NSSecureCoding, @unchecked Sendable {
  /// The anchors saved with the map (app anchors and plane anchors), in the map's world. A session
  /// that relocalises to the map adds them, with these identifiers. Apps may replace the list before
  /// saving; subclasses of `ARAnchor` are saved as plain anchors (identifier, name, transform).
  public var anchors: [ARAnchor]
  /// The map's 3D feature points, world coordinates in metres: one per feature of each keyframe (a
  /// physical point described in several keyframes appears once per keyframe); identifiers are
  /// the keyframe's index times 2^20 plus the feature's index.
  public let rawFeaturePoints: ARPointCloud
  /// The centre of the axis-aligned box around ``rawFeaturePoints``, world coordinates, metres
  /// (zero for a map without points).
  public let center: simd_float3
  /// The size of that box along x, y and z, metres.
  public let extent: simd_float3
  /// The keyframes relocalisation matches against, in the map's world (``Keyframe/oFromOptical`` is
  /// world from the keyframe's optical frame here).
  let keyframes: [Keyframe]
  /// A number drawn from the map's descriptors (FNV-1a over each keyframe's first one), to seed
  /// identifiers that differ from those of the session that made the map.
  var identitySeed: UInt64 {
    keyframes.reduce(0xCBF2_9CE4_8422_2325) { hash, keyframe in
      let word = keyframe.descriptors.first?.words[0] ?? 0
      return (hash ^ word) &* 0x100_0000_01B3
    }
  }
  /// How many keyframes the map holds (ARSim's addition).
  public var keyframeCount: Int { keyframes.count }

  /// A map of `keyframes` (world coordinates) and `anchors`.
  init(keyframes: [Keyframe], anchors: [ARAnchor]) {
    self.keyframes = keyframes
    self.anchors = anchors
    var points: [simd_float3] = []
    var identifiers: [UInt64] = []
    for (k, keyframe) in keyframes.enumerated() {
      for (i, point) in keyframe.points.enumerated() {
        points.append(simd_float3(point))
        identifiers.append(UInt64(k) << 20 | UInt64(i))
      }
    }
    rawFeaturePoints = ARPointCloud(points: points, identifiers: identifiers)
    if let first = points.first {
      let (low, high) = points.reduce((first, first)) { (pointwiseMin($0.0, $1), pointwiseMax($0.1, $1)) }
      center = (low + high) / 2
      extent = high - low
    } else {
      center = .zero
      extent = .zero
    }
  }

  /// The map in ARSim's file format, version 1 (documented in ``MapArchive``; Datasets/README.md).
  public func data() -> Data {
    MapArchive.encode(MapArchive.Contents(keyframes: keyframes, anchors: anchors))
  }

  /// A map read from ARSim's file format (ARSim's addition). `name` begins error messages (a path).
  /// - Throws: ``ARError`` ``ARError/Code/invalidWorldMap``: `NAME: byte N: problem`.
  public convenience init(data: Data, name: String = "world map") throws(ARError) {
    let contents = try MapArchive.decode(data, name: name)
    self.init(keyframes: contents.keyframes, anchors: contents.anchors)
  }

  /// A map read from a file in ARSim's format (ARSim's addition).
  /// - Throws: ``ARError`` ``ARError/Code/fileIOFailed`` when the file cannot be read,
  ///   ``ARError/Code/invalidWorldMap`` when it is not a valid map; the message names the file.
  public convenience init(contentsOf url: URL) throws(ARError) {
    let data: Data
    do {
      data = try Data(contentsOf: url)
    } catch {
      throw ARError(
        .fileIOFailed, message: "\(url.path): cannot read the world map (\(error.localizedDescription))")
    }
    try self.init(data: data, name: url.path)
  }

  /// Writes the map in ARSim's format to `url`, through a temporary file renamed into place.
  /// - Throws: ``ARError`` ``ARError/Code/fileIOFailed`` naming the file.
  public func write(to url: URL) throws(ARError) {
    do {
      try data().write(to: url, options: .atomic)
    } catch {
      throw ARError(
        .fileIOFailed, message: "\(url.path): cannot write the world map (\(error.localizedDescription))")
    }
  }

  // MARK: NSSecureCoding

  /// The key of the archived map's bytes (ARSim's file format) in a keyed archive.
  static let archiveKey = "ARSimWorldMap"

  /// True: maps decode only as `ARWorldMap`, as `NSKeyedUnarchiver.unarchivedObject(ofClass:from:)` asks.
  public static var supportsSecureCoding: Bool { true }

  /// Archives the map as one data value in ARSim's file format.
  public func encode(with coder: NSCoder) { coder.encode(data() as NSData, forKey: Self.archiveKey) }

  /// Unarchives a map; nil (and the coder's error set to the reader's ``ARError``) when the archive
  /// holds no valid map.
  public required convenience init?(coder: NSCoder) {
    guard let data = coder.decodeObject(of: NSData.self, forKey: Self.archiveKey) else {
      coder.failWithError(ARError(.invalidWorldMap, message: "world map archive: no \(Self.archiveKey) data"))
      return nil
    }
    do {
      let contents = try MapArchive.decode(data as Data, name: "world map archive")
      self.init(keyframes: contents.keyframes, anchors: contents.anchors)
    } catch {
      coder.failWithError(error)
      return nil
    }
  }
}

extension ARAnchor {
  /// The anchor as a session holding it: same identifier and properties (as ARSim saves them:
  /// plane anchors keep their geometry, other anchors their name and transform), `sessionIdentifier`.
  func restamped(sessionIdentifier: UUID) -> ARAnchor {
    guard let plane = self as? ARPlaneAnchor else {
      return ARAnchor(
        identifier: identifier, name: name, transform: transform, sessionIdentifier: sessionIdentifier)
    }
    return ARPlaneAnchor(
      identifier: identifier, transform: transform, alignment: plane.alignment, center: plane.center,
      planeExtent: plane.planeExtent, geometry: plane.geometry, classification: plane.classification,
      sessionIdentifier: sessionIdentifier)
  }
}
