/// Step 5 of ``PlaneDetector``: ARKit's classification of each plane from its orientation, height, size
/// and shape (rules in ``PlaneDetectionOptions``), applied every frame to every live plane, so a plane
/// that reaches a door's size as it grows becomes a door (and is reported updated).
struct PlaneClassifier {
  let options: PlaneDetectionOptions

  /// Classifies every live track of `tracks` (marking those whose class changes dirty).
  func classify(_ tracks: inout [PlaneTrack], meanCameraHeight: Double) {
    var floor: Double?
    for track in tracks
    where track.alive && track.alignment == .horizontal
      && isFloorCandidate(
        height: track.height, seenFromAbove: track.seenFromAbove >= track.seenFromBelow, area: track.area,
        cameraHeight: meanCameraHeight)
    {
      floor = min(floor ?? track.height, track.height)
    }
    for t in tracks.indices where tracks[t].alive {
      let classification = classification(
        of: tracks[t], among: tracks, floor: floor, meanCameraHeight: meanCameraHeight)
      if classification != tracks[t].classification {
        tracks[t].classification = classification
        tracks[t].dirty = true
      }
    }
  }

  private func classification(
    of track: PlaneTrack, among tracks: [PlaneTrack], floor: Double?, meanCameraHeight: Double
  ) -> ARPlaneAnchor.Classification {
    switch track.alignment {
    case .vertical:
      if let floor, let box = track.verticalExtent {
        let (width, height) = (box.right - box.left, box.top - box.bottom)
        let (bottom, top) = (box.bottom - floor, box.top - floor)
        if isDoor(bottom: box.bottom, top: box.top, width: width, floor: floor) { return .door }
        if bottom >= options.windowMinimumSill && top <= options.windowMaximumTop
          && options.windowWidth.contains(width) && options.windowHeight.contains(height)
          && isFramedByWall(track, among: tracks)
        {
          return .window
        }
      }
      return track.area >= options.wallMinimumArea ? .wall : .none(.unknown)
    case .horizontal:
      return horizontalClassification(
        height: track.height, seenFromAbove: !(track.seenFromBelow > track.seenFromAbove), floor: floor,
        cameraHeight: meanCameraHeight)
    }
  }

  // MARK: Rules (shared with ``SurfacePlaneDetector``)

  /// Whether a horizontal plane at `height` (metres, world up) of `area` square metres, seen from above
  /// or below, may be the floor: seen from above, large, and well below the mean camera height.
  func isFloorCandidate(height: Double, seenFromAbove: Bool, area: Double, cameraHeight: Double) -> Bool {
    seenFromAbove && height <= cameraHeight - options.floorMinimumDepthBelowCamera
      && area >= options.floorMinimumArea
  }

  /// ARKit's class of a horizontal plane at `height`: a ceiling well above the cameras when seen from
  /// below; seen from above, floor, seat or table by its height over `floor` (undetermined without a
  /// floor).
  func horizontalClassification(height h: Double, seenFromAbove: Bool, floor: Double?, cameraHeight: Double)
    -> ARPlaneAnchor.Classification
  {
    if !seenFromAbove {
      return h >= cameraHeight + options.ceilingMinimumHeightAboveCamera ? .ceiling : .none(.unknown)
    }
    guard let floor else { return .none(.undetermined) }
    let above = h - floor
    if above.magnitude <= options.floorHeightTolerance { return .floor }
    if above >= options.seatMinimumHeight && above < options.tableMinimumHeight { return .seat }
    if above >= options.tableMinimumHeight && above <= options.tableMaximumHeight { return .table }
    return .none(.unknown)
  }

  /// Whether a vertical plane spanning `bottom` to `top` (metres, world up) and `width` metres across
  /// is a door: standing on the floor, of a door's width and height.
  func isDoor(bottom: Double, top: Double, width: Double, floor: Double) -> Bool {
    (bottom - floor).magnitude <= options.doorFloorTolerance && options.doorWidth.contains(width)
      && options.doorHeight.contains(top - bottom)
  }

  /// Whether a vertical track is framed by a wall, as a window is: another live vertical plane of at
  /// least ``PlaneDetectionOptions/wallMinimumArea``, parallel within the merge angle and at most
  /// ``PlaneDetectionOptions/windowMaximumRecess`` in front of or behind it, whose support extends
  /// beyond it on the left, the right, above and below (the track's bounding box, grown by a region cell
  /// on every side, inside the wall's hull). A picture or a cupboard front has no wall all around it in
  /// view; a piece of wall seen alone is not framed either.
  private func isFramedByWall(_ track: PlaneTrack, among tracks: [PlaneTrack]) -> Bool {
    guard let centroid = track.moments.mean, let first = track.hull.first else { return false }
    var (low, high) = (first, first)
    for p in track.hull {
      low = simd_min(low, p)
      high = simd_max(high, p)
    }
    let margin = options.regionCellSize
    let corners = [
      SIMD2(low.x - margin, low.y - margin), SIMD2(high.x + margin, low.y - margin),
      SIMD2(high.x + margin, high.y + margin), SIMD2(low.x - margin, high.y + margin),
    ].map { track.world(anchor2D: $0) }
    let maxAngle = options.mergeAngleDegrees * .pi / 180
    return tracks.contains { wall in
      wall.alive && wall.alignment == .vertical && wall.identifier != track.identifier
        && wall.area >= options.wallMinimumArea && wall.plane.angle(to: track.plane) <= maxAngle
        && wall.plane.signedDistance(to: centroid).magnitude <= options.windowMaximumRecess
        && corners.allSatisfy { Polygon2D.contains(wall.anchor2D($0), in: wall.hull) }
    }
  }
}
