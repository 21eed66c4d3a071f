import ARSim
import Foundation
import Testing

@Suite struct ViewportTests {
  /// A 4:3 landscape sensor image, as an iPhone's ARKit captures it.
  static let image = CGSize(width: 1920, height: 1440)
  /// An iPhone-shaped view (points) in portrait and in landscape.
  static let portraitView = CGSize(width: 390, height: 844)
  static let landscapeView = CGSize(width: 844, height: 390)

  static func close(_ p: CGPoint, _ q: CGPoint, tolerance: CGFloat = 1e-9) -> Bool {
    abs(p.x - q.x) <= tolerance && abs(p.y - q.y) <= tolerance
  }

  /// The view point of a normalized image point.
  static func view(_ viewport: Viewport, _ x: CGFloat, _ y: CGFloat) -> CGPoint {
    viewport.viewPoint(fromNormalizedImagePoint: CGPoint(x: x, y: y), imageResolution: image)
  }

  @Test func orientationBasics() {
    #expect(UIInterfaceOrientation.portrait.isPortrait && !UIInterfaceOrientation.portrait.isLandscape)
    #expect(UIInterfaceOrientation.portraitUpsideDown.isPortrait)
    #expect(
      UIInterfaceOrientation.landscapeLeft.isLandscape && UIInterfaceOrientation.landscapeRight.isLandscape)
    #expect(!UIInterfaceOrientation.unknown.isPortrait && !UIInterfaceOrientation.unknown.isLandscape)
    // UIKit's raw values.
    #expect(UIInterfaceOrientation.allCases.map(\.rawValue).sorted() == [0, 1, 2, 3, 4])
    #expect(
      UIInterfaceOrientation.landscapeRight.rawValue == 3
        && UIInterfaceOrientation.landscapeLeft.rawValue == 4)
    // ARKit's view rotation angles.
    #expect(UIInterfaceOrientation.landscapeRight.viewRotationAngle == 0)
    #expect(UIInterfaceOrientation.portrait.viewRotationAngle == 90)
    #expect(UIInterfaceOrientation.landscapeLeft.viewRotationAngle == 180)
    #expect(UIInterfaceOrientation.portraitUpsideDown.viewRotationAngle == 270)
    #expect(UIInterfaceOrientation.unknown.viewRotationAngle == 0)
  }

  @Test func landscapeRightWithTheImageAspectIsTheIdentity() {
    let viewport = Viewport(size: CGSize(width: 960, height: 720), orientation: .landscapeRight)
    #expect(viewport.displayTransform(imageResolution: Self.image) == .identity)
    #expect(Self.close(Self.view(viewport, 0.25, 0.75), CGPoint(x: 240, y: 540)))
  }

  @Test func landscapeRightOnAWidePhoneCropsTopAndBottom() {
    let viewport = Viewport(size: Self.landscapeView, orientation: .landscapeRight)
    // Aspect fill: 1920x1440 scaled by 844/1920 is 844x633 points; 121.5 points cropped top and bottom.
    #expect(Self.close(Self.view(viewport, 0, 0), CGPoint(x: 0, y: -121.5)))
    #expect(Self.close(Self.view(viewport, 1, 0), CGPoint(x: 844, y: -121.5)))
    #expect(Self.close(Self.view(viewport, 0, 1), CGPoint(x: 0, y: 511.5)))
    #expect(Self.close(Self.view(viewport, 1, 1), CGPoint(x: 844, y: 511.5)))
    #expect(Self.close(Self.view(viewport, 0.5, 0.5), CGPoint(x: 422, y: 195)))
  }

  @Test func portraitRotatesTheImageClockwiseAndCropsTheSides() {
    let viewport = Viewport(size: Self.portraitView, orientation: .portrait)
    // Turned upright the image is 1440x1920 pixels; aspect fill scales it by 844/1920 to 633x844 points,
    // centred, so 121.5 points overflow on the left and on the right.
    // Turned 90° clockwise: the image's top-left corner goes to the top-right, its left edge runs along
    // the top of the view and its top edge down the right side.
    #expect(Self.close(Self.view(viewport, 0, 0), CGPoint(x: 511.5, y: 0)))
    #expect(Self.close(Self.view(viewport, 1, 0), CGPoint(x: 511.5, y: 844)))
    #expect(Self.close(Self.view(viewport, 1, 1), CGPoint(x: -121.5, y: 844)))
    #expect(Self.close(Self.view(viewport, 0, 1), CGPoint(x: -121.5, y: 0)))
    #expect(Self.close(Self.view(viewport, 0.5, 0.5), CGPoint(x: 195, y: 422)))
    // The middle of the image's left edge is the middle of the view's top edge.
    #expect(Self.close(Self.view(viewport, 0, 0.5), CGPoint(x: 195, y: 0)))
    let t = viewport.displayTransform(imageResolution: Self.image)
    // The rotation part: x' depends only on v (decreasing), y' only on u (increasing).
    #expect(t.a == 0 && t.d == 0 && t.b == 1 && t.c < 0)
  }

  @Test func landscapeLeftAndUpsideDownPortrait() {
    let left = Viewport(size: CGSize(width: 960, height: 720), orientation: .landscapeLeft)
    // Turned 180°: top-left to bottom-right.
    #expect(Self.close(Self.view(left, 0, 0), CGPoint(x: 960, y: 720)))
    #expect(Self.close(Self.view(left, 1, 0), CGPoint(x: 0, y: 720)))
    #expect(Self.close(Self.view(left, 0.25, 0.25), CGPoint(x: 720, y: 540)))
    let upsideDown = Viewport(size: Self.portraitView, orientation: .portraitUpsideDown)
    // Turned 270° clockwise: the image's top-left corner goes to the bottom-left (beyond the crop).
    #expect(Self.close(Self.view(upsideDown, 0, 0), CGPoint(x: -121.5, y: 844)))
    #expect(Self.close(Self.view(upsideDown, 1, 0), CGPoint(x: -121.5, y: 0)))
    #expect(Self.close(Self.view(upsideDown, 0, 0.5), CGPoint(x: 195, y: 844)))
    // Unknown behaves as landscapeRight.
    let unknown = Viewport(size: Self.portraitView, orientation: .unknown)
    let right = Viewport(size: Self.portraitView, orientation: .landscapeRight)
    #expect(
      unknown.displayTransform(imageResolution: Self.image)
        == right.displayTransform(imageResolution: Self.image))
  }

  @Test func tapsMapBackToImagePoints() {
    let portrait = Viewport(size: Self.portraitView, orientation: .portrait)
    // The view's top-centre shows the middle of the image's left edge.
    let top = portrait.normalizedImagePoint(fromViewPoint: CGPoint(x: 195, y: 0), imageResolution: Self.image)
    #expect(Self.close(top, CGPoint(x: 0, y: 0.5)))
    // The view's top-left corner: image column 0, and the row whose point is 195 points left of centre.
    let corner = portrait.normalizedImagePoint(fromViewPoint: .zero, imageResolution: Self.image)
    #expect(Self.close(corner, CGPoint(x: 0, y: 0.5 + 195.0 / 633.0)))
    // Round trips for every orientation and several view shapes.
    for orientation in UIInterfaceOrientation.allCases {
      for size in [Self.portraitView, Self.landscapeView, CGSize(width: 500, height: 500)] {
        let viewport = Viewport(size: size, orientation: orientation)
        for (x, y) in [(0.0, 0.0), (12.5, 300.0), (size.width, size.height), (size.width / 3, 7.0)] {
          let tap = CGPoint(x: x, y: y)
          let imagePoint = viewport.normalizedImagePoint(fromViewPoint: tap, imageResolution: Self.image)
          // Every view point shows some part of the image (aspect fill never letterboxes).
          #expect((-1e-9...1 + 1e-9).contains(imagePoint.x) && (-1e-9...1 + 1e-9).contains(imagePoint.y))
          let back = viewport.viewPoint(fromNormalizedImagePoint: imagePoint, imageResolution: Self.image)
          #expect(Self.close(back, tap, tolerance: 1e-9))
        }
      }
    }
  }

  @Test func degenerateSizesKeepTheRotationWithoutScaling() {
    let viewport = Viewport(size: .zero, orientation: .portrait)
    let t = viewport.displayTransform(imageResolution: Self.image)
    #expect(t == CGAffineTransform(a: 0, b: 1, c: -1, d: 0, tx: 1, ty: 0))
    let noImage = Viewport(size: Self.portraitView, orientation: .landscapeRight)
    #expect(noImage.displayTransform(imageResolution: .zero) == .identity)
  }
}
