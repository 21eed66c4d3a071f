#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// One voxel of the plane detector's point map: the running mean of the points that fell into it.
struct PlaneVoxel {
  /// The weighted sum of the points, metres (world).
  var sum: SIMD3<Double>
  /// The weight of `sum`: the number of points, capped so that the mean follows a refined landmark
  /// (a small whole number, exact in a `Float`, which keeps the voxel to one 64-byte stride).
  var weight: Float
  /// Observations so far (saturating).
  var observations: Int32
  /// The detector frame (1, 2, ...) in which the voxel was last observed.
  var lastSeen: Int32
  /// The frame in which it was last touched by the ingest loop (to list each voxel once per frame).
  var touchStamp: Int32
  /// The index of the plane track the voxel joined (another may since have absorbed it: the detector
  /// follows its merges), `-1` for none, `-2` for a free slot.
  var track: Int32
  /// Whether the voxel was already counted as a new unexplained point for RANSAC.
  var announced: Bool
  /// Whether a depth point fell into it (else only feature points; see
  /// ``PlaneDetectionOptions/minimumDepthShare``).
  var seenInDepth: Bool
  /// The packed integer coordinates.
  var key: Int64

  /// The mean position, metres (world).
  var position: SIMD3<Double> { sum / Double(weight) }
}

/// A bounded hash of voxels in world space. Voxels live in a slot array (iterated in slot order, which
/// depends only on the sequence of operations, so results are deterministic); a ``VoxelIndex`` maps voxel
/// coordinates to slots and is only ever used for lookups.
struct PlaneVoxelMap {
  /// The voxel edge, metres.
  let voxelSize: Double
  private let inverseSize: Double
  /// The slots; free ones have `track == -2`.
  private(set) var voxels: [PlaneVoxel] = []
  private var slotOfKey = VoxelIndex()
  private var freeSlots: [Int32] = []
  /// The number of live voxels.
  private(set) var count = 0
  /// The slots of a batch of points being observed (kept to reuse its storage).
  private var scratchSlots: [Int32] = []

  /// The weight at which a voxel's mean starts to forget old points.
  static let weightCap: Float = 32
  private static let offset: Int64 = 1 << 20

  init(voxelSize: Double) {
    self.voxelSize = voxelSize
    inverseSize = 1 / voxelSize
  }

  /// The packed coordinates of the voxel holding `point`, or `nil` when the point is not finite or
  /// farther than 2²⁰ voxels from the origin.
  @inline(__always)
  func key(of point: SIMD3<Double>) -> Int64? { Self.key(of: point, inverseSize: inverseSize) }

  /// ``key(of:)`` for voxels of edge `1 / inverseSize` (a loop over the voxels in place cannot call a
  /// method of the map).
  @inline(__always)
  private static func key(of point: SIMD3<Double>, inverseSize: Double) -> Int64? {
    let scaled = point * inverseSize
    let limit = Double(Self.offset)
    guard scaled.x.magnitude < limit, scaled.y.magnitude < limit, scaled.z.magnitude < limit else {
      return nil  // also rejects NaN (comparisons with NaN are false)
    }
    // Each within ±2²⁰ (the guard above): the additions cannot overflow.
    let ix = PlaneCells.floor(scaled.x) &+ Self.offset
    let iy = PlaneCells.floor(scaled.y) &+ Self.offset
    let iz = PlaneCells.floor(scaled.z) &+ Self.offset
    return (ix << 42) | (iy << 21) | iz
  }

  /// Adds one feature point observed in `frame`. Returns its voxel's slot when this is the voxel's first point
  /// in `frame`, `-1` when the voxel already had a point in `frame`, and `nil` for a point that cannot be
  /// stored (non-finite or absurdly far).
  mutating func observe(_ point: SIMD3<Double>, frame: Int32) -> Int32? {
    guard let slot = slot(for: point, frame: frame) else { return nil }
    return accumulate(point, slot: slot, frame: frame, depth: false) ? slot : -1
  }

  /// Adds the feature points observed in `frame`, one by one as ``observe(_:frame:)`` does, and appends
  /// to `touched` the slots of the voxels that got their first point of the frame (one call for the
  /// frame's points: each call on the detector's map is checked for exclusive access).
  mutating func observe(features: [FeaturePoint], frame: Int32, touched: inout [Int32]) {
    for feature in features {
      if let slot = observe(feature.position, frame: frame), slot >= 0 { touched.append(slot) }
    }
  }

  /// Adds the depth points observed in `frame` (as ``observe(_:frame:)`` one by one would, and marks
  /// their voxels ``PlaneVoxel/seenInDepth``) and appends to `touched` the slots of the voxels that got
  /// their first point of the frame.
  ///
  /// In two passes, because the map's cost is cache misses: first every point's slot (voxels new to the
  /// map created empty, in point order), then every point into its voxel, in point order. Within a pass
  /// one point's memory accesses do not wait for the previous point's, so their misses overlap.
  mutating func observe(_ points: [SIMD3<Float>], frame: Int32, touched: inout [Int32]) {
    // The slots go into storage of the points' count, written in place (an append checked the
    // array's capacity and uniqueness for every point); the array is out of the map meanwhile, so
    // that writing it and creating voxels do not overlap.
    var scratch: [Int32] = []
    swap(&scratch, &scratchSlots)
    defer { swap(&scratch, &scratchSlots) }
    scratch.removeAll(keepingCapacity: true)
    scratch.append(contentsOf: repeatElement(-1, count: points.count))
    touched.reserveCapacity(touched.count + points.count)
    scratch.withUnsafeMutableBufferPointer { slots in
      points.withUnsafeBufferPointer { points in
        for k in points.indices { slots[k] = slot(for: SIMD3<Double>(points[k]), frame: frame) ?? -1 }
      }
    }
    scratch.withUnsafeBufferPointer { slots in
      points.withUnsafeBufferPointer { points in
        voxels.withUnsafeMutableBufferPointer { voxels in
          for k in points.indices where slots[k] >= 0 {
            let slot = slots[k]
            if Self.accumulate(SIMD3<Double>(points[k]), into: &voxels[Int(slot)], frame: frame, depth: true)
            {
              touched.append(slot)
            }
          }
        }
      }
    }
  }

  /// The slot of the voxel holding `point`, created empty (no points) when the map has none; `nil` for
  /// a point that cannot be stored (non-finite or absurdly far).
  @inline(__always)
  private mutating func slot(for point: SIMD3<Double>, frame: Int32) -> Int32? {
    guard let key = key(of: point) else { return nil }
    // The slot a new voxel takes: the last freed one, else a new one at the end.
    let slot = freeSlots.last ?? Int32(voxels.count)
    if let existing = slotOfKey.slot(of: key, insertingIfAbsent: slot) { return existing }
    create(key: key, slot: slot, frame: frame)
    return slot
  }

  /// Stores a new voxel (no points yet) with key `key` in `slot`, the last free slot or the next new
  /// one (kept out of line: the lookups that find a voxel are the loop's common case).
  @inline(never)
  private mutating func create(key: Int64, slot: Int32, frame: Int32) {
    let voxel = PlaneVoxel(
      sum: .zero, weight: 0, observations: 0, lastSeen: frame, touchStamp: 0, track: -1, announced: false,
      seenInDepth: false, key: key)
    if freeSlots.popLast() != nil {
      voxels[Int(slot)] = voxel
    } else {
      voxels.append(voxel)
    }
    count += 1
  }

  /// Adds `point`, observed in `frame` (frames count from 1) by the depth sensor (`depth`) or as a
  /// feature point, to the voxel in `slot`; true when it is the voxel's first point in `frame`.
  private mutating func accumulate(_ point: SIMD3<Double>, slot: Int32, frame: Int32, depth: Bool) -> Bool {
    Self.accumulate(point, into: &voxels[Int(slot)], frame: frame, depth: depth)
  }

  /// ``accumulate(_:slot:frame:depth:)`` on the voxel itself.
  @inline(__always)
  private static func accumulate(
    _ point: SIMD3<Double>, into voxel: inout PlaneVoxel, frame: Int32, depth: Bool
  ) -> Bool {
    if depth { voxel.seenInDepth = true }
    if voxel.weight >= weightCap {
      voxel.sum *= Double((weightCap - 1) / weightCap)
      voxel.weight = weightCap - 1
    }
    voxel.sum += point
    voxel.weight += 1
    if voxel.observations < Int32.max { voxel.observations += 1 }
    voxel.lastSeen = frame
    guard voxel.touchStamp != frame else { return false }
    voxel.touchStamp = frame
    return true
  }

  /// Whether the voxel holding `point` exists and has at least `minimumObservations` observations.
  @inline(__always)
  func isStable(at point: SIMD3<Double>, minimumObservations: Int32) -> Bool {
    guard let key = key(of: point), let slot = slotOfKey.slot(of: key) else { return false }
    return voxels[Int(slot)].observations >= minimumObservations
  }

  /// The voxel in `slot`.
  subscript(slot: Int32) -> PlaneVoxel { voxels[Int(slot)] }

  /// Makes the voxel in `slot` support track `track` (`-1` for none).
  mutating func assign(slot: Int32, track: Int32) { voxels[Int(slot)].track = track }

  /// Marks the voxel in `slot` as counted among the new unexplained points; `false` if it already was.
  mutating func announce(slot: Int32) -> Bool {
    guard !voxels[Int(slot)].announced else { return false }
    voxels[Int(slot)].announced = true
    return true
  }

  /// Removes the voxel in `slot` (which must be live).
  mutating func remove(slot: Int32) {
    let i = Int(slot)
    guard voxels[i].track != -2 else { return }
    slotOfKey.remove(voxels[i].key)
    voxels[i].track = -2
    freeSlots.append(slot)
    count -= 1
  }

  /// Moves every voxel by a rigid correction of the world (`newWorldFromOld`) and re-keys it by its new
  /// mean position, in slot order (deterministic). Two voxels that land in one voxel merge into the
  /// lower slot: sums and weights add (the weight capped at ``weightCap`` as observing does), the
  /// observations add, the latest frame stamps stay, either's depth mark holds, a plane assignment wins over none (the lower slot's
  /// over another's). A voxel moved out of the storable range is dropped. Linear in the voxels.
  mutating func applyWorldCorrection(_ correction: RigidTransform) {
    let prepared = PreparedCorrection(correction)
    applyWorldCorrection(each: { _ in prepared })
  }

  /// Moves each voxel by its own correction (nil: it stays), then re-keys and merges as
  /// ``applyWorldCorrection(_:)`` does: a loop closure's deformation of the world.
  ///
  /// One pass over the slots in place, each voxel's key looked up and, when new, stored in one probe
  /// of the new index: a correction moves the whole map, so this pass is most of such a frame's cost.
  mutating func applyWorldCorrection(each correctionOf: (PlaneVoxel) -> PreparedCorrection?) {
    var index = VoxelIndex(minimumCapacity: count)
    let inverseSize = inverseSize
    var freed = freeSlots
    var live = count
    freeSlots = []
    voxels.withUnsafeMutableBufferPointer { voxels in
      for i in voxels.indices where voxels[i].track != -2 {
        var voxel = voxels[i]
        if let correction = correctionOf(voxel) {
          voxel.sum = correction.rotate(voxel.sum) + Double(voxel.weight) * correction.translation
        }
        guard let key = Self.key(of: voxel.position, inverseSize: inverseSize) else {
          voxels[i].track = -2
          freed.append(Int32(i))
          live -= 1
          continue
        }
        guard let kept = index.slot(of: key, insertingIfAbsent: Int32(i)) else {
          voxel.key = key
          voxels[i] = voxel
          continue
        }
        Self.merge(voxel, into: &voxels[Int(kept)])
        voxels[i].track = -2
        freed.append(Int32(i))
        live -= 1
      }
    }
    freeSlots = freed
    count = live
    slotOfKey = index
  }

  /// Merges `voxel`, moved into the voxel of `kept`, into it (see ``applyWorldCorrection(_:)``).
  @inline(__always)
  private static func merge(_ voxel: PlaneVoxel, into kept: inout PlaneVoxel) {
    kept.sum += voxel.sum
    kept.weight += voxel.weight
    if kept.weight > weightCap {
      kept.sum *= Double(weightCap / kept.weight)
      kept.weight = weightCap
    }
    kept.observations =
      kept.observations.addingReportingOverflow(voxel.observations).overflow
      ? Int32.max : kept.observations + voxel.observations
    kept.lastSeen = max(kept.lastSeen, voxel.lastSeen)
    kept.touchStamp = max(kept.touchStamp, voxel.touchStamp)
    if kept.track == -1 { kept.track = voxel.track }
    kept.announced = kept.announced || voxel.announced
    kept.seenInDepth = kept.seenInDepth || voxel.seenInDepth
  }

  /// Drops voxels that never became stable within `lifetime` frames, then, while more than `capacity`
  /// voxels remain, the least recently observed ones down to 90 % of `capacity` (among voxels last seen
  /// in the same frame, lower slots first). Linear time: a histogram of ages finds the cut-off.
  mutating func evict(frame: Int32, minimumObservations: Int32, lifetime: Int32, capacity: Int) {
    for i in voxels.indices
    where voxels[i].track != -2 && voxels[i].observations < minimumObservations
      && frame - voxels[i].lastSeen > lifetime
    {
      remove(slot: Int32(i))
    }
    guard count > capacity else { return }
    let excess = count - capacity * 9 / 10
    let buckets = 4096
    var histogram = [Int](repeating: 0, count: buckets)
    @inline(__always) func age(_ voxel: PlaneVoxel) -> Int {
      min(Int(frame - voxel.lastSeen), buckets - 1)
    }
    for voxel in voxels where voxel.track != -2 { histogram[age(voxel)] += 1 }
    // The oldest ages whose voxels all go, and how many of the next age go too.
    var cutoff = buckets - 1
    var removed = 0
    while cutoff > 0 && removed + histogram[cutoff] <= excess {
      removed += histogram[cutoff]
      cutoff -= 1
    }
    var partial = excess - removed
    for i in voxels.indices where voxels[i].track != -2 {
      let a = age(voxels[i])
      if a > cutoff {
        remove(slot: Int32(i))
      } else if a == cutoff && partial > 0 {
        remove(slot: Int32(i))
        partial -= 1
      }
    }
  }
}
