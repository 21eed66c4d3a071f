import Foundation

/// A view that shows the captured camera image the way ARKit's views (`ARSCNView`, RealityKit's `ARView`)
/// do: rotated upright for the interface orientation, scaled to aspect *fill* the view, centred, and
/// cropped on the two sides that overflow. An ARSim type; ARKit exposes the same mapping as
/// `ARFrame.displayTransform(for:viewportSize:)`.
///
/// Coordinates:
/// - *View points*: points (UIKit units), origin at the view's top-left corner, x right, y down, within
///   `size`.
/// - *Normalized view coordinates*: view points divided by `size`, so the view spans `0...1` in both axes.
/// - *Normalized image coordinates*: pixels of the captured image (in its native landscape orientation,
///   origin at its top-left corner) divided by the image resolution, so the image spans `0...1`; pixel
///   `(u, v)` of a `W`x`H` image is `(u / W, v / H)`.
///
/// Orientation, following Apple's documentation of the view rotation angle ("the clockwise rotation
/// needed to keep the camera image level with the horizon: 0 LandscapeRight, 90 Portrait, 180
/// LandscapeLeft, 270 PortraitUpsideDown"): in `.landscapeRight` the image is shown unrotated; in
/// `.portrait` it is turned 90° clockwise, so the image's left edge runs along the top of the view and
/// its top edge along the right side; `.landscapeLeft` turns it 180°; `.portraitUpsideDown` 270°.
/// `.unknown` is treated as `.landscapeRight`.
public struct Viewport: Sendable, Hashable {
  /// The view's size in points. Both sides should be positive and finite; otherwise the mapping keeps
  /// the rotation but does no aspect-fill scaling.
  public var size: CGSize
  /// The interface orientation the view is presented in.
  public var orientation: UIInterfaceOrientation

  /// A viewport of `size` points presented in `orientation`.
  public init(size: CGSize, orientation: UIInterfaceOrientation) {
    self.size = size
    self.orientation = orientation
  }

  /// The transform from normalized image coordinates of an image of `imageResolution` pixels to
  /// normalized view coordinates, as `ARFrame.displayTransform(for:viewportSize:)` returns it: the
  /// rotation for ``orientation`` followed by the aspect-fill scale about the centre. Points of the image
  /// that are cropped away map outside `0...1`. Its `inverted()` maps normalized view coordinates (a tap
  /// divided by ``size``) back to normalized image coordinates.
  public func displayTransform(imageResolution: CGSize) -> CGAffineTransform {
    let turns = orientation.clockwiseQuarterTurns
    let rotation = Viewport.rotation(clockwiseQuarterTurns: turns)
    // The image's size once turned upright, in pixels.
    let upright =
      turns % 2 == 0
      ? imageResolution : CGSize(width: imageResolution.height, height: imageResolution.width)
    var scaleX: CGFloat = 1
    var scaleY: CGFloat = 1
    let sizes = [size.width, size.height, upright.width, upright.height]
    if sizes.allSatisfy({ $0 > 0 && $0.isFinite }) {
      // Aspect fill: the image covers the view; the factor is pixels to points.
      let fill = max(size.width / upright.width, size.height / upright.height)
      scaleX = fill * upright.width / size.width
      scaleY = fill * upright.height / size.height
    }
    return
      rotation
      .concatenating(CGAffineTransform(translationX: -0.5, y: -0.5))
      .concatenating(CGAffineTransform(scaleX: scaleX, y: scaleY))
      .concatenating(CGAffineTransform(translationX: 0.5, y: 0.5))
  }

  /// The normalized image coordinates (`0...1`, origin at the image's top-left) of the image point shown
  /// at `viewPoint` (points, origin at the view's top-left), for an image of `imageResolution` pixels.
  public func normalizedImagePoint(fromViewPoint viewPoint: CGPoint, imageResolution: CGSize) -> CGPoint {
    let normalizedView = CGPoint(x: viewPoint.x / size.width, y: viewPoint.y / size.height)
    return normalizedView.applying(displayTransform(imageResolution: imageResolution).inverted())
  }

  /// The view point (points, origin at the view's top-left) where the image point at
  /// `normalizedImagePoint` (`0...1`, origin at the image's top-left) is shown; outside the view's bounds
  /// when that part of the image is cropped away.
  public func viewPoint(fromNormalizedImagePoint normalizedImagePoint: CGPoint, imageResolution: CGSize)
    -> CGPoint
  {
    let normalizedView = normalizedImagePoint.applying(displayTransform(imageResolution: imageResolution))
    return CGPoint(x: normalizedView.x * size.width, y: normalizedView.y * size.height)
  }

  /// The clockwise rotation of the unit square by `turns` quarter turns, in normalized coordinates with
  /// the origin at the top-left (y down): one turn maps `(u, v)` to `(1 − v, u)`.
  package static func rotation(clockwiseQuarterTurns turns: Int) -> CGAffineTransform {
    switch ((turns % 4) + 4) % 4 {
    case 1: CGAffineTransform(a: 0, b: 1, c: -1, d: 0, tx: 1, ty: 0)
    case 2: CGAffineTransform(a: -1, b: 0, c: 0, d: -1, tx: 1, ty: 1)
    case 3: CGAffineTransform(a: 0, b: -1, c: 1, d: 0, tx: 0, ty: 1)
    default: .identity
    }
  }
}
