internal import CVision

/// Parameters of pyramidal Lucas-Kanade tracking.
package struct KLTParams: Sendable, Equatable, Codable {
  /// Side of the square search window in pixels; odd, at least 5 (default 21).
  package var window: Int
  /// Pyramid levels above full resolution (default 3).
  package var levels: Int
  /// Iterations per pyramid level (default 30).
  package var maxIterations: Int
  /// Convergence threshold on the update, pixels (default 0.01).
  package var epsilon: Float
  /// Points whose mean absolute patch difference (intensity levels per pixel) exceeds this are
  /// lost (default 30).
  package var maxError: Float

  /// Creates parameters; every argument has the documented default.
  package init(
    window: Int = 21, levels: Int = 3, maxIterations: Int = 30, epsilon: Float = 0.01, maxError: Float = 30
  ) {
    self.window = window
    self.levels = levels
    self.maxIterations = maxIterations
    self.epsilon = epsilon
    self.maxError = maxError
  }
}

/// The implementations a KLT call on images can run; tests compare them
/// (``OpticalFlow/trackKLT(from:to:points:params:initial:implementation:)``).
package enum KLTImplementation: Sendable, CaseIterable {
  /// CVision's tracker, AVX2 where the CPU has it: what tracking uses.
  case automatic
  /// CVision's tracker, portable code only: the same bits as `automatic`.
  case portable
  /// OpenCV's calcOpticalFlowPyrLK, which CVision's tracker follows (sums rounded in float).
  case openCV

  /// Whether `automatic` runs AVX2 code on this CPU.
  package static var isVectorised: Bool { cv_klt_vectorised() != 0 }

  var code: Int32 {
    switch self {
    case .automatic: Int32(CV_KLT_AUTOMATIC)
    case .portable: Int32(CV_KLT_PORTABLE)
    case .openCV: Int32(CV_KLT_OPENCV)
    }
  }
}

/// A frame's image pyramid prepared for KLT, built once and used as the `to` image of one
/// tracking call and the `from` image of the next. Owns the C++ pyramid and frees it in `deinit`.
/// Sendable because nothing changes it once built (tracking only reads it): the reading thread builds
/// a frame's pyramid ahead of tracking (``CameraTracker/preparation(_:)``) and hands it over
/// with the frame.
package final class KLTPyramid: @unchecked Sendable {
  /// Image size in pixels.
  package let width: Int
  package let height: Int
  /// The KLT parameters the pyramid was built for (window and levels must match when tracking).
  package let params: KLTParams
  fileprivate let handle: OpaquePointer

  /// Builds the pyramid of `image` for `params.window` and `params.levels`.
  package init(_ image: GrayImage, params: KLTParams) throws(VisionError) {
    var status = cv_status()
    let window = try VisionError.int32(params.window, "params.window")
    let levels = try VisionError.int32(params.levels, "params.levels")
    let width = try VisionError.int32(image.width, "image.width")
    let height = try VisionError.int32(image.height, "image.height")
    let built = image.pixels.withUnsafeBufferPointer { pixels in
      cv_pyramid_build(
        cv_gray_image(pixels: pixels.baseAddress, width: width, height: height, stride: width), window,
        levels,
        &status)
    }
    guard let built else { throw VisionError(status) }
    handle = built
    self.width = image.width
    self.height = image.height
    self.params = params
  }

  deinit { cv_pyramid_free(handle) }
}

/// Sparse optical flow.
package enum OpticalFlow {
  /// Tracks `points` from the `from` pyramid's image into the `to` pyramid's image with the
  /// parameters both were built for; as ``trackKLT(from:to:points:params:initial:)`` otherwise.
  package static func trackKLT(
    from: KLTPyramid, to: KLTPyramid, points: [SIMD2<Float>], initial: [SIMD2<Float>]? = nil
  ) throws(VisionError) -> [SIMD2<Float>?] {
    var call = try KLTCall(points: points, initial: initial, params: to.params)
    var status = cv_status()
    let code = call.previous.withUnsafeBufferPointer { previousBuffer in
      call.next.withUnsafeMutableBufferPointer { nextBuffer in
        call.found.withUnsafeMutableBufferPointer { foundBuffer in
          cv_track_klt_pyramids(
            from.handle, to.handle, previousBuffer.baseAddress, call.count, call.params,
            nextBuffer.baseAddress, foundBuffer.baseAddress, nil, &status)
        }
      }
    }
    try VisionError.check(code, status)
    return call.tracked
  }

  /// Tracks `points` (pixels in `from`) into `to` with pyramidal Lucas-Kanade.
  ///
  /// Returns one entry per point: its position in `to` in pixels, or `nil` when it was lost
  /// (no convergence, patch error above `params.maxError`, or outside the image).
  /// `initial` (optional, one per point) are starting guesses in `to`. `implementation` is for tests.
  package static func trackKLT(
    from: GrayImage, to: GrayImage, points: [SIMD2<Float>], params: KLTParams = KLTParams(),
    initial: [SIMD2<Float>]? = nil, implementation: KLTImplementation = .automatic
  ) throws(VisionError) -> [SIMD2<Float>?] {
    var call = try KLTCall(points: points, initial: initial, params: params)
    let fromWidth = try VisionError.int32(from.width, "from.width")
    let fromHeight = try VisionError.int32(from.height, "from.height")
    let toWidth = try VisionError.int32(to.width, "to.width")
    let toHeight = try VisionError.int32(to.height, "to.height")
    var status = cv_status()
    let code = from.pixels.withUnsafeBufferPointer { fromPixels in
      to.pixels.withUnsafeBufferPointer { toPixels in
        call.previous.withUnsafeBufferPointer { previousBuffer in
          call.next.withUnsafeMutableBufferPointer { nextBuffer in
            call.found.withUnsafeMutableBufferPointer { foundBuffer in
              cv_track_klt_using(
                cv_gray_image(
                  pixels: fromPixels.baseAddress, width: fromWidth, height: fromHeight, stride: fromWidth),
                cv_gray_image(
                  pixels: toPixels.baseAddress, width: toWidth, height: toHeight, stride: toWidth),
                previousBuffer.baseAddress, call.count, call.params, nextBuffer.baseAddress,
                foundBuffer.baseAddress, nil, implementation.code, &status)
            }
          }
        }
      }
    }
    try VisionError.check(code, status)
    return call.tracked
  }
}

/// One KLT call's points as CVision takes and returns them: the points' coordinates one after the
/// other, the next positions (the initial guesses when given, else zeros), and the found flags.
private struct KLTCall {
  let count: Int32
  let params: cv_klt_params
  let previous: [Float]
  var next: [Float]
  var found: [UInt8]

  /// Checks the arguments of a call (`initial`, when given, has one guess per point).
  init(points: [SIMD2<Float>], initial: [SIMD2<Float>]?, params: KLTParams) throws(VisionError) {
    if let initial, initial.count != points.count {
      throw .invalidArgument("initial has \(initial.count) points; points has \(points.count)")
    }
    count = try VisionError.int32(points.count, "points.count")
    self.params = cv_klt_params(
      window: try VisionError.int32(params.window, "params.window"),
      levels: try VisionError.int32(params.levels, "params.levels"),
      max_iterations: try VisionError.int32(params.maxIterations, "params.maxIterations"),
      epsilon: params.epsilon, max_error: params.maxError, use_initial: initial == nil ? 0 : 1)
    var previous = [Float]()
    previous.reserveCapacity(2 * points.count)
    for p in points { previous += [p.x, p.y] }
    self.previous = previous
    next = [Float](repeating: 0, count: 2 * points.count)
    for (i, p) in (initial ?? []).enumerated() {
      next[2 * i] = p.x
      next[2 * i + 1] = p.y
    }
    found = [UInt8](repeating: 0, count: points.count)
  }

  /// Each point's position in the next image after the call, nil where it was lost.
  var tracked: [SIMD2<Float>?] {
    (0..<found.count).map { found[$0] != 0 ? SIMD2(next[2 * $0], next[2 * $0 + 1]) : nil }
  }
}
