/// Per-face classification of the reconstructed mesh from geometry alone: a face's normal against
/// gravity, and its height against the floor and the cameras, by the plane classifier's rules
/// (``PlaneDetectionOptions``' floor, seat, table and ceiling heights), so faces and planes agree.
package struct MeshClassifier: Sendable {
  /// A face is horizontal when its normal is within this angle's cosine of up or down.
  static let horizontalCosine = 0.9
  /// A face is vertical when its normal's vertical component is below this (about 20 degrees).
  static let verticalSine = 0.34
  /// Height bins for the floor estimate, metres.
  static let binSize = 0.05

  let options: PlaneDetectionOptions

  /// The floor's height: among the height bins `floorMinimumDepthBelowCamera` below the mean camera
  /// height, the lowest whose upward faces (with its two neighbours') cover at least
  /// `floorMinimumArea` square metres and a quarter of the largest such window, so that a few
  /// square decimetres of noise below the floor do not count; then the area-weighted mean height of
  /// the upward faces from a bin below it to four above (a floor fused from a drifting trajectory is
  /// not one height). Nil when no bin qualifies.
  func floorHeight(upwardArea: [Int: Double], meanCameraHeight: Double) -> Double? {
    func centre(_ bin: Int) -> Double { (Double(bin) + 0.5) * Self.binSize }
    func window(_ bin: Int) -> Double {
      (upwardArea[bin - 1] ?? 0) + (upwardArea[bin] ?? 0) + (upwardArea[bin + 1] ?? 0)
    }
    let bins = upwardArea.keys.sorted().filter {
      centre($0) <= meanCameraHeight - options.floorMinimumDepthBelowCamera
    }
    let largest = bins.map(window).max() ?? 0
    guard let lowest = bins.first(where: { window($0) >= max(options.floorMinimumArea, largest / 4) }) else {
      return nil
    }
    var sum = 0.0
    var area = 0.0
    for bin in (lowest - 1)...(lowest + 4) {
      let a = upwardArea[bin] ?? 0
      sum += centre(bin) * a
      area += a
    }
    return sum / area
  }

  /// The class of a face whose unit normal has vertical component `up` and whose centre lies at
  /// `height` metres (world).
  func classify(up: Double, height: Double, floor: Double?, meanCameraHeight: Double) -> ARMeshClassification
  {
    if up.magnitude <= Self.verticalSine { return .wall }
    if up <= -Self.horizontalCosine {
      return height >= meanCameraHeight + options.ceilingMinimumHeightAboveCamera ? .ceiling : .none
    }
    guard up >= Self.horizontalCosine, let floor else { return .none }
    let above = height - floor
    if above.magnitude <= options.floorHeightTolerance { return .floor }
    if above >= options.seatMinimumHeight && above < options.tableMinimumHeight { return .seat }
    if above >= options.tableMinimumHeight && above <= options.tableMaximumHeight { return .table }
    return .none
  }
}
