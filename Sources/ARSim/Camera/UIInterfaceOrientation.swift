import Foundation

// UIKit's interface orientation, which Linux lacks. Where UIKit exists the real type is used.
#if !canImport(UIKit)

  /// The orientation of the app's user interface, with UIKit's names and raw values
  /// (`UIInterfaceOrientation`), for platforms without UIKit.
  ///
  /// Each case names where the device's home button (the bottom edge of a phone without one) is
  /// relative to the upright interface: `.portrait` has it at the bottom, `.landscapeRight` on the right,
  /// `.landscapeLeft` on the left, `.portraitUpsideDown` at the top. `.landscapeRight` is the camera
  /// sensor's native orientation: in it ARKit's captured image appears upright with no rotation (see
  /// ``viewRotationAngle``).
  public enum UIInterfaceOrientation: Int, Sendable, Hashable, Codable, CaseIterable {
    /// The orientation is not known. ARSim treats it as ``landscapeRight`` (no rotation).
    case unknown = 0
    /// Upright portrait, home button at the bottom.
    case portrait = 1
    /// Upside-down portrait, home button at the top.
    case portraitUpsideDown = 2
    /// Landscape with the home button on the left.
    case landscapeLeft = 4
    /// Landscape with the home button on the right: the camera sensor's native orientation.
    case landscapeRight = 3

    /// Whether the interface is in portrait (`.portrait` or `.portraitUpsideDown`).
    public var isPortrait: Bool { self == .portrait || self == .portraitUpsideDown }

    /// Whether the interface is in landscape (`.landscapeLeft` or `.landscapeRight`).
    public var isLandscape: Bool { self == .landscapeLeft || self == .landscapeRight }
  }

#endif

extension UIInterfaceOrientation {
  /// ARSim: the clockwise rotation, in degrees, that turns the captured image (in the sensor's native
  /// orientation) upright for this interface orientation: 0 for `.landscapeRight` (and `.unknown`), 90
  /// for `.portrait`, 180 for `.landscapeLeft`, 270 for `.portraitUpsideDown`. This is ARKit's
  /// "view rotation angle" (`ARSession.viewRotationAngle`, iOS 27).
  public var viewRotationAngle: Double { Double(clockwiseQuarterTurns) * 90 }

  /// The number of clockwise quarter turns (0...3) from the captured image to the upright view; see
  /// ``viewRotationAngle``.
  package var clockwiseQuarterTurns: Int {
    switch self {
    case .portrait: 1
    case .landscapeLeft: 2
    case .portraitUpsideDown: 3
    default: 0
    }
  }
}
