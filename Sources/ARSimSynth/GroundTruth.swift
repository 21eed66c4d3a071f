import ARSimMath
import Foundation

/// A ground-truth plane of a synthetic session, as `planes.json` lists it.
public struct GroundTruthPlane: Codable, Sendable, Equatable {
  /// How a plane lies with respect to gravity.
  public enum Alignment: String, Codable, Sendable {
    /// The normal is within 1° of vertical.
    case horizontal
    /// The normal is within 1° of horizontal.
    case vertical
    /// Anything else.
    case other
  }

  /// When and how much the camera saw a plane (from the pixel-centre rays of every frame).
  public struct Visibility: Codable, Sendable, Equatable {
    /// Timestamp (seconds, to a microsecond) of the first frame that shows it; nil when no frame does.
    public var firstSeen: Double?
    /// Number of frames that show it divided by the frame rate, seconds (to a microsecond).
    public var secondsSeen: Double
    /// The most pixels it covers in one frame.
    public var maxPixels: Int
  }

  /// The surface's `id` in the scene.
  public var id: Int
  /// The surface's label.
  public var label: SyntheticScene.SurfaceLabel
  /// Its material's name.
  public var material: String
  /// Orientation with respect to gravity.
  public var alignment: Alignment
  /// Unit normal in the world, pointing to the side the camera saw it from (most pixels over the
  /// session; up for a floor); for a plane never seen, up when horizontal, else as the scene gives it.
  public var normal: SIMD3<Double>
  /// `d` in `normal · x + d = 0`, metres.
  public var offset: Double
  /// The outline's vertices in the world, metres, counter-clockwise seen from `normal`'s side.
  public var polygon: [SIMD3<Double>]
  /// The vertices' mean, metres.
  public var center: SIMD3<Double>
  /// Area in square metres.
  public var area: Double
  /// What the camera saw of it.
  public var visibility: Visibility
}

/// The contents of `planes.json`.
public struct GroundTruthPlanesFile: Codable, Sendable, Equatable {
  /// Always "arsim-planes".
  public var format = "arsim-planes"
  /// Always 1.
  public var version = 1
  /// Gravity's direction in the ground-truth world (unit vector).
  public var gravity: SIMD3<Double>
  /// One per scene surface, in scene order.
  public var planes: [GroundTruthPlane]

  // `load(path:)` and the checks of every value are in GroundTruthFiles.swift.
}

/// A ground-truth tap: an image point of a frame and the exact world point its ray hits, as one line
/// of `taps.txt`: `timestamp u v frame wx wy wz planeId`.
public struct GroundTruthTap: Sendable, Equatable {
  /// The frame's timestamp, seconds.
  public var timestamp: Double
  /// Image point in pixels (origin at the top-left corner; pixel centres at integers).
  public var u: Double
  public var v: Double
  /// Frame index.
  public var frame: Int
  /// The hit in the world, metres.
  public var world: SIMD3<Double>
  /// The `id` of the surface hit.
  public var planeId: Int

  /// The line of `taps.txt`.
  public var line: String {
    String(
      format: "%.6f %.4f %.4f %d %.7f %.7f %.7f %d", timestamp, u, v, frame, world.x, world.y, world.z,
      planeId)
  }

  /// The header comment of `taps.txt`.
  public static let header =
    "# timestamp u v frame wx wy wz planeId (pixels, origin top-left; world point in metres)"

  /// Parses a `taps.txt` line; nil unless it has the eight fields.
  public init?(line: Substring) {
    let fields = line.split(separator: " ")
    guard fields.count == 8, let t = Double(fields[0]), let u = Double(fields[1]), let v = Double(fields[2]),
      let frame = Int(fields[3]), let x = Double(fields[4]), let y = Double(fields[5]),
      let z = Double(fields[6]),
      let id = Int(fields[7])
    else { return nil }
    self.init(timestamp: t, u: u, v: v, frame: frame, world: SIMD3(x, y, z), planeId: id)
  }

  /// Creates a tap.
  public init(timestamp: Double, u: Double, v: Double, frame: Int, world: SIMD3<Double>, planeId: Int) {
    self.timestamp = timestamp
    self.u = u
    self.v = v
    self.frame = frame
    self.world = world
    self.planeId = planeId
  }
}

/// Accumulates what the ground truth needs while frames are rendered in order.
struct GroundTruthRecorder {
  private let renderer: SceneRenderer
  private var firstSeen: [Double?]
  private var framesSeen: [Int]
  private var maxPixels: [Int]
  /// Pixels seen from the normal's side minus pixels seen from the other.
  private var sideVotes: [Double]
  private(set) var taps: [GroundTruthTap] = []
  /// Tap ordinal by frame index.
  private let tapFrames: [Int: Int]

  init(renderer: SceneRenderer, frameCount: Int) {
    self.renderer = renderer
    let count = renderer.surfaces.count
    firstSeen = Array(repeating: nil, count: count)
    framesSeen = Array(repeating: 0, count: count)
    maxPixels = Array(repeating: 0, count: count)
    sideVotes = Array(repeating: 0, count: count)
    let scene = renderer.scene
    var frames: [Int: Int] = [:]
    var k = 1
    while Double(k) * scene.render.tapInterval <= scene.time(ofFrame: frameCount - 1) + 1e-9 {
      let frame = Int((Double(k) * scene.render.tapInterval * scene.frameRate).rounded())
      if frame < frameCount, frames[frame] == nil { frames[frame] = k }
      k += 1
    }
    tapFrames = frames
  }

  mutating func add(_ frame: RenderedFrame) {
    let camera = frame.pose.translation
    for (s, pixels) in frame.visiblePixels.enumerated() where pixels > 0 {
      firstSeen[s] = firstSeen[s] ?? frame.timestamp
      framesSeen[s] += 1
      maxPixels[s] = max(maxPixels[s], pixels)
      let side = renderer.surfaces[s].plane.signedDistance(to: camera)
      sideVotes[s] += side >= 0 ? Double(pixels) : -Double(pixels)
    }
    if let ordinal = tapFrames[frame.index], let tap = chooseTap(frame, ordinal: ordinal) { taps.append(tap) }
  }

  /// A tap on a surface chosen at random among those covering at least 0.2% of the image, at a random
  /// point of it.
  private func chooseTap(_ frame: RenderedFrame, ordinal: Int) -> GroundTruthTap? {
    let scene = renderer.scene
    let (width, height) = (scene.camera.width, scene.camera.height)
    let minimum = max(1, width * height / 500)
    let candidates = frame.visiblePixels.indices.filter { frame.visiblePixels[$0] >= minimum }
    guard !candidates.isEmpty else { return nil }
    var random = SplitMix64(scene.seed, stableHash("tap"), UInt64(ordinal))
    let chosen = candidates[Int(random.next() % UInt64(candidates.count))]
    let pixels = frame.surfaceIndex.indices.filter { frame.surfaceIndex[$0] == chosen }
    for _ in 0..<20 {
      let pixel = pixels[Int(random.next() % UInt64(pixels.count))]
      let u = Double(pixel % width) + random.uniform(-0.5, 0.5)
      let v = Double(pixel / width) + random.uniform(-0.5, 0.5)
      if let hit = renderer.raycast(from: frame.pose, u: u, v: v), hit.surface == chosen {
        return GroundTruthTap(
          timestamp: frame.timestamp, u: u, v: v, frame: frame.index, world: hit.world,
          planeId: scene.surfaces[chosen].id)
      }
    }
    return nil
  }

  /// The planes with their visibility, in scene order.
  func planes() -> [GroundTruthPlane] {
    let scene = renderer.scene
    return renderer.surfaces.enumerated().map { s, geometry in
      var plane = geometry.plane
      var vertices = geometry.vertices
      let up = abs(plane.normal.y)
      let alignment: GroundTruthPlane.Alignment =
        up >= cos(Double.pi / 180) ? .horizontal : up <= sin(Double.pi / 180) ? .vertical : .other
      let flip = sideVotes[s] != 0 ? sideVotes[s] < 0 : (alignment == .horizontal && plane.normal.y < 0)
      if flip {
        plane = plane.flipped
        vertices.reverse()
      }
      let visibility = GroundTruthPlane.Visibility(
        firstSeen: firstSeen[s].map { ($0 * 1e6).rounded() / 1e6 },
        secondsSeen: (Double(framesSeen[s]) / scene.frameRate * 1e6).rounded() / 1e6, maxPixels: maxPixels[s])
      return GroundTruthPlane(
        id: scene.surfaces[s].id, label: scene.surfaces[s].label, material: scene.surfaces[s].material,
        alignment: alignment, normal: rounded(plane.normal), offset: rounded(plane.offset),
        polygon: vertices.map(rounded),
        center: rounded(vertices.reduce(.zero, +) / Double(vertices.count)), area: rounded(geometry.area),
        visibility: visibility)
    }
  }
}

/// `value` rounded to 1e-9 (and −0 made 0), so that files show 0.3 rather than 0.30000000000000004.
private func rounded(_ value: Double) -> Double { (value * 1e9).rounded() / 1e9 + 0 }

private func rounded(_ value: SIMD3<Double>) -> SIMD3<Double> {
  SIMD3(rounded(value.x), rounded(value.y), rounded(value.z))
}
