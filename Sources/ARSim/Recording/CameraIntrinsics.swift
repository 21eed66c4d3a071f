import Foundation

/// Intrinsics as recordings and the command line give them: validation, parsing, known presets.
extension CameraIntrinsics {
  /// Returns self when the values describe a usable camera: finite positive focal lengths, each
  /// within ``focalLengthRange`` times the image's width (x) or height (y), a positive image size, and
  /// a principal point inside the image.
  /// - Parameter source: the file or option the values came from, for the error.
  /// - Throws: ``RecordingError`` naming `source` and the problem.
  public func validated(source: String) throws(RecordingError) -> CameraIntrinsics {
    guard fx.isFinite, fy.isFinite, cx.isFinite, cy.isFinite, fx > 0, fy > 0 else {
      throw RecordingError(
        file: source, "intrinsics must be four finite numbers with fx, fy > 0, got \(self.summary)")
    }
    guard width > 0, height > 0 else {
      throw RecordingError(file: source, "image size must be positive, got \(width)x\(height)")
    }
    let range = Self.focalLengthRange
    guard range.contains(fx / Double(width)), range.contains(fy / Double(height)) else {
      throw RecordingError(
        file: source,
        "focal lengths fx \(fx), fy \(fy) are not within \(range.lowerBound)...\(range.upperBound) "
          + "times the \(width)x\(height) image's width and height")
    }
    guard cx > 0, cy > 0, cx < Double(width), cy < Double(height) else {
      throw RecordingError(
        file: source, "principal point (\(cx), \(cy)) lies outside the \(width)x\(height) image")
    }
    return self
  }

  /// The focal lengths accepted, in image widths (fx) and heights (fy): wider than an undistorted
  /// 150° view (0.13) and a 3° telephoto (19) with margins. A value outside is a damaged file or
  /// one in other units.
  public static let focalLengthRange = 0.05...50.0

  /// `fx,fy,cx,cy` as the command line writes them.
  public var summary: String { "\(fx),\(fy),\(cx),\(cy)" }

  /// Parses `fx,fy,cx,cy` (pixels). The image size is left 0: the reader fills it in from the
  /// recording and validates the whole with ``validated(source:)``.
  /// - Throws: ``RecordingError`` naming `source` unless the text is four positive finite numbers.
  public static func parse(_ text: String, source: String) throws(RecordingError) -> CameraIntrinsics {
    let parts = text.split(separator: ",", omittingEmptySubsequences: false).map {
      Double($0.trimmingCharacters(in: .whitespaces))
    }
    guard parts.count == 4, let fx = parts[0], let fy = parts[1], let cx = parts[2], let cy = parts[3],
      [fx, fy, cx, cy].allSatisfy({ $0.isFinite && $0 > 0 })
    else {
      throw RecordingError(
        file: source, "intrinsics must be four positive numbers fx,fy,cx,cy, got '\(text)'")
    }
    return CameraIntrinsics(fx: fx, fy: fy, cx: cx, cy: cy, width: 0, height: 0)
  }

  /// These intrinsics for images of the given size, validated.
  public func resized(width: Int, height: Int, source: String) throws(RecordingError) -> CameraIntrinsics {
    var copy = self
    copy.width = width
    copy.height = height
    return try copy.validated(source: source)
  }

  /// The published intrinsics of the TUM RGB-D benchmark's Kinects (640x480), by name:
  /// `freiburg1`, `freiburg2`, `freiburg3` (the "ROS default" `fr3` values, which are the
  /// calibration the fr3 images are registered to).
  public static func tumPreset(_ name: String) -> CameraIntrinsics? {
    switch name {
    case "freiburg1", "fr1":
      CameraIntrinsics(fx: 517.3, fy: 516.5, cx: 318.6, cy: 255.3, width: 640, height: 480)
    case "freiburg2", "fr2":
      CameraIntrinsics(fx: 520.9, fy: 521.0, cx: 325.1, cy: 249.7, width: 640, height: 480)
    case "freiburg3", "fr3":
      CameraIntrinsics(fx: 535.4, fy: 539.2, cx: 320.1, cy: 247.6, width: 640, height: 480)
    default: nil
    }
  }
}

extension FrameSourceOptions {
  /// The intrinsics a reader delivers for a recording whose own are `recorded` (read from
  /// `recordedSource`): ``intrinsicsOverride`` (`--intrinsics`) for images of `recorded`'s size when
  /// given, else `recorded`; with where they came from, for ``RecordingInfo/intrinsicsSource``.
  func intrinsics(_ recorded: CameraIntrinsics, recordedIn recordedSource: String) throws(RecordingError) -> (
    intrinsics: CameraIntrinsics, source: String
  ) {
    guard let override = intrinsicsOverride else { return (recorded, recordedSource) }
    return (
      try override.resized(width: recorded.width, height: recorded.height, source: "--intrinsics"),
      "--intrinsics"
    )
  }
}
