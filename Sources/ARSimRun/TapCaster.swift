import ARSim
import Foundation

/// `--taps FILE --hits FILE`: raycasts each tap (`timestamp u v`, pixels with integers at pixel
/// centres, `#` comments; further columns are ignored) at the frame nearest in time and writes
/// one JSON object per tap, hits nearest first.
public final class TapCaster {
  /// A tap: when (seconds, recording time) and where (pixels).
  public struct Tap {
    public var time: Double
    public var pixel: SIMD2<Double>
    /// The caller's number for the tap (its line in the ground truth, for `arsim eval`).
    public var id: Int = 0

    public init(time: Double, pixel: SIMD2<Double>, id: Int = 0) {
      self.time = time
      self.pixel = pixel
      self.id = id
    }
  }

  /// One tap as cast, kept when the caster collects (for `arsim eval`).
  public struct Cast {
    public var tap: Tap
    /// The frame the tap was cast at.
    public var frameIndex: Int
    /// That frame's camera optical frame in the session world, and its tracking state.
    public var worldFromOptical: RigidTransform
    public var state: ARCamera.TrackingState
    /// The hits, nearest first.
    public var results: [ARRaycastResult]
    /// The plane anchors of that frame.
    public var planeAnchors: [ARPlaneAnchor]
  }

  private var pending: [Tap] = []
  private let hits: OutputFile?
  private let target: ARRaycastQuery.Target
  private let alignment: ARRaycastQuery.TargetAlignment
  private let collects: Bool
  /// The taps cast so far, in cast order, when collecting.
  public private(set) var casts: [Cast] = []

  /// Reads the taps of `tapsPath` and writes the hits to `hitsPath`.
  public convenience init(
    tapsPath: String, hitsPath: String, target: ARRaycastQuery.Target,
    alignment: ARRaycastQuery.TargetAlignment
  )
    throws
  {
    guard
      let text = FileManager.default.contents(atPath: tapsPath).map({ String(decoding: $0, as: UTF8.self) })
    else {
      throw RecordingError(file: tapsPath, "no such file")
    }
    var taps: [Tap] = []
    for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
      let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
      if fields.isEmpty || fields[0].hasPrefix("#") { continue }
      guard fields.count >= 3, let t = Double(fields[0]), let u = Double(fields[1]),
        let v = Double(fields[2]),
        t.isFinite, u.isFinite, v.isFinite
      else {
        throw RecordingError(file: tapsPath, line: number + 1, "expected 'timestamp u v' with finite numbers")
      }
      taps.append(Tap(time: t, pixel: SIMD2(u, v)))
    }
    try self.init(taps: taps, hitsPath: hitsPath, target: target, alignment: alignment, collects: false)
  }

  /// Casts `taps`; writes the hits to `hitsPath` when given, and keeps every cast in ``casts`` when
  /// `collects`.
  public init(
    taps: [Tap], hitsPath: String?, target: ARRaycastQuery.Target, alignment: ARRaycastQuery.TargetAlignment,
    collects: Bool
  ) throws {
    pending = taps.sorted { $0.time < $1.time }
    hits = try hitsPath.map { try OutputFile(path: $0) }
    self.target = target
    self.alignment = alignment
    self.collects = collects
  }

  /// Casts the taps that are nearer in time to `previous` than to `frame` (they come before it).
  public func cast(before frame: ARFrame, previous: ARFrame?, session: ARSession) throws {
    while let tap = pending.first {
      if let previous, tap.time <= (previous.timestamp + frame.timestamp) / 2 {
        try cast(tap, at: previous, session: session)
      } else if previous == nil, tap.time <= frame.timestamp {
        try cast(tap, at: frame, session: session)
      } else {
        return
      }
      pending.removeFirst()
    }
  }

  /// Casts the remaining taps at the last frame and closes the file.
  public func finish(last: ARFrame?, session: ARSession) throws {
    if let last {
      for tap in pending { try cast(tap, at: last, session: session) }
    }
    pending.removeAll()
    try hits?.close()
  }

  private func cast(_ tap: Tap, at frame: ARFrame, session: ARSession) throws {
    let point = frame.camera.normalized(fromPixel: tap.pixel)
    let query = frame.raycastQuery(from: point, allowing: target, alignment: alignment)
    let results = session.raycast(query, in: frame)
    if collects {
      casts.append(
        Cast(
          tap: tap, frameIndex: frame.frameIndex, worldFromOptical: frame.camera.worldFromOptical,
          state: frame.camera.trackingState, results: results,
          planeAnchors: frame.anchors.compactMap { $0 as? ARPlaneAnchor }))
    }
    guard let hits else { return }
    let objects: [JSON] = results.map { result in
      let p = result.worldTransform.columns.3
      return .object([
        ("world", .array([.float(p.x), .float(p.y), .float(p.z)])),
        ("transform", JSON.matrix(result.worldTransform)),
        ("distance", .float(result.distance)), ("target", .string("\(result.target)")),
        ("alignment", .string("\(result.targetAlignment)")),
        ("anchor", result.anchor.map { .string($0.identifier.uuidString) } ?? .null),
      ])
    }
    try hits.write(
      JSON.object([
        ("t", .number(tap.time)), ("u", .number(tap.pixel.x)), ("v", .number(tap.pixel.y)),
        ("frame", .int(frame.frameIndex)), ("hits", .array(objects)),
      ]).text)
  }
}
