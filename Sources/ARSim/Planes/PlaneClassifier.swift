/// Step 5 of ``PlaneDetector``: ARKit's classification of each plane from its orientation, height, size
/// and shape (rules in ``PlaneDetectionOptions``), applied every frame to every live plane, so a plane
/// that reaches a door's size as it grows becomes a door (and is reported updated).
struct PlaneClassifier {
  let options: PlaneDetectionOptions

  /// Classifies every live track of `tracks` (marking those whose class changes dirty).
  func classify(_ tracks: inout [PlaneTrack], meanCameraHeight: Double) {
    var floor: Double?
    for track in tracks
    where track.alive && track.alignment == .horizontal && track.seenFromAbove >= track.seenFromBelow
      && track.height <= meanCameraHeight - options.floorMinimumDepthBelowCamera
      && track.area >= options.floorMinimumArea
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
        if bottom.magnitude <= options.doorFloorTolerance && options.doorWidth.contains(width)
          && options.doorHeight.contains(height)
        {
          return .door
        }
        if bottom >= options.windowMinimumSill && top <= options.windowMaximumTop
          && options.windowWidth.contains(width) && options.windowHeight.contains(height)
          && isFramedByWall(track, among: tracks)
        {
          return .window
        }
      }
      return track.area >= options.wallMinimumArea ? .wall : .none(.unknown)
    case .horizontal:
      let h = track.height
      if track.seenFromBelow > track.seenFromAbove {
        return h >= meanCameraHeight + options.ceilingMinimumHeightAboveCamera ? .ceiling : .none(.unknown)
      }
      guard let floor else { return .none(.undetermined) }
      let above = h - floor
      if above.magnitude <= options.floorHeightTolerance { return .floor }
      if above >= options.seatMinimumHeight && above < options.tableMinimumHeight { return .seat }
      if above >= options.tableMinimumHeight && above <= options.tableMaximumHeight { return .table }
      return .none(.unknown)
    }
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
