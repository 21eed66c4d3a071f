/// The depth a frame's tracking and plane detection read: low-confidence pixels masked out, and
/// for the feature-based modes registered at the image's size.
extension RecordedFrame {
  /// The depth map with pixels whose confidence is below `minConfidence` set to NaN (unchanged
  /// without a confidence map or with `minConfidence` 0).
  func depth(minConfidence: UInt8) -> DepthImage? {
    guard var depth, let confidence, minConfidence > 0, confidence.levels.count == depth.metres.count else {
      return depth
    }
    for i in depth.metres.indices where confidence.levels[i] < minConfidence { depth.metres[i] = .nan }
    return depth
  }
}

extension DepthImage {
  /// This depth map resampled (nearest depth pixel, corners aligned) to `width` x `height`, for the
  /// feature-based trackers, which look depth up at image pixels. Depth-only tracking and plane
  /// detection use the map at its own resolution instead.
  func resampled(width: Int, height: Int) -> DepthImage {
    guard width != self.width || height != self.height else { return self }
    let columns = (0..<width).map {
      min(self.width - 1, Int((Double($0) + 0.5) * Double(self.width) / Double(width)))
    }
    var metres = [Float](repeating: .nan, count: width * height)
    for y in 0..<height {
      let row =
        min(self.height - 1, Int((Double(y) + 0.5) * Double(self.height) / Double(height))) * self.width
      for x in 0..<width { metres[y * width + x] = self.metres[row + columns[x]] }
    }
    return DepthImage(width: width, height: height, metres: metres)
  }
}
