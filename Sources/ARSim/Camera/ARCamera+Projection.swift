import Foundation

// Projection conventions (ARKit's, for Metal):
// - The view frame of an interface orientation is the camera frame turned about its z axis so that +x
//   points right and +y up on the screen: view = Rz(−angle) · camera, with `angle` the view rotation
//   angle (0° landscapeRight, 90° portrait, 180° landscapeLeft, 270° portraitUpsideDown).
// - Clip space: x and y in [−w, w] across the viewport (y up), depth z in [0, w] from the near to the far
//   plane (Metal's convention), w = −z_view (the distance in front of the camera).
// - The image is shown as `Viewport.displayTransform` says (rotated, aspect fill, centred crop), so a
//   world point lands on the viewport exactly where its pixel of the captured image is displayed.

extension ARCamera {
  /// The projection matrix for the captured image in its native orientation and size:
  /// `projectionMatrix(for: .landscapeRight, viewportSize: imageResolution, zNear: 0.001, zFar: 1000)`,
  /// ARKit's defaults. It maps camera-frame points (`viewMatrix(for: .landscapeRight)` coordinates) to
  /// clip space whose normalized x and y, taken to pixels, are the pinhole projection through
  /// ``intrinsics``.
  public var projectionMatrix: simd_float4x4 {
    projectionMatrix(for: .landscapeRight, viewportSize: imageResolution, zNear: 0.001, zFar: 1000)
  }

  /// A projection matrix for rendering content over the camera image shown in a viewport
  /// (`ARCamera.projectionMatrix(for:viewportSize:zNear:zFar:)`).
  ///
  /// It maps view-space points of ``viewMatrix(for:)`` with the same `orientation` to clip space: x and y
  /// in `[−w, w]` across the viewport (+y up), depth in `[0, w]` between the near and far planes (Metal's
  /// convention), `w` the distance in front of the camera. The horizontal and vertical extents follow the
  /// aspect-fill display of ``Viewport``, so rendered content lines up with the camera image.
  /// - Parameters:
  ///   - orientation: the interface orientation the viewport is presented in.
  ///   - viewportSize: the viewport's size in points (only its aspect ratio matters).
  ///   - zNear: the near clipping distance in metres (> 0).
  ///   - zFar: the far clipping distance in metres; 0 or infinity gives an infinite far plane.
  public func projectionMatrix(
    for orientation: UIInterfaceOrientation, viewportSize: CGSize, zNear: CGFloat, zFar: CGFloat
  ) -> simd_float4x4 {
    let viewport = Viewport(size: viewportSize, orientation: orientation)
    let clipFromCamera = clipFromCamera(viewport: viewport, zNear: Double(zNear), zFar: Double(zFar))
    let cameraFromView = viewFromCamera(orientation).transpose
    return simd_float4x4(clipFromCamera * cameraFromView)
  }

  /// The view matrix for an interface orientation (`ARCamera.viewMatrix(for:)`): world to view space,
  /// metres, where view space is the camera frame turned about its z axis so that +x points right and +y
  /// up on the screen in that orientation (the camera still looks along −z). For `.landscapeRight` (and
  /// `.unknown`) it is the inverse of ``transform``; for `.portrait` the view's +x is the camera's +y and
  /// the view's +y is the camera's −x.
  public func viewMatrix(for orientation: UIInterfaceOrientation) -> simd_float4x4 {
    simd_float4x4(viewFromCamera(orientation) * cameraFromWorld.matrix)
  }

  /// Projects a world point into a viewport (`ARCamera.projectPoint(_:orientation:viewportSize:)`).
  /// - Parameters:
  ///   - point: a point in world coordinates, metres.
  ///   - orientation: the interface orientation the viewport is presented in.
  ///   - viewportSize: the viewport's size in points.
  /// - Returns: the point in view points, origin at the viewport's top-left corner, where `point` appears
  ///   over the displayed camera image; outside the bounds when off screen. As in ARKit there is no
  ///   visibility test: a point behind the camera projects through the centre to a mirrored position
  ///   (use the result only for points in front of the camera).
  public func projectPoint(
    _ point: simd_float3, orientation: UIInterfaceOrientation, viewportSize: CGSize
  ) -> CGPoint {
    let viewport = Viewport(size: viewportSize, orientation: orientation)
    let clipFromCamera = clipFromCamera(viewport: viewport, zNear: 0.001, zFar: 1000)
    let inCamera = cameraFromWorld.apply(to: SIMD3<Double>(point))
    let clip = clipFromCamera * SIMD4(inCamera, 1)
    let ndcX = clip.x / clip.w
    let ndcY = clip.y / clip.w
    return CGPoint(
      x: CGFloat((ndcX + 1) / 2) * viewportSize.width, y: CGFloat((1 - ndcY) / 2) * viewportSize.height)
  }

  /// Intersects the ray through a viewport point with a plane
  /// (`ARCamera.unprojectPoint(_:ontoPlane:orientation:viewportSize:)`).
  /// - Parameters:
  ///   - point: a point in the viewport, in points, origin at its top-left corner.
  ///   - planeTransform: the plane's local-to-world transform; the plane is the local x-z plane: it passes
  ///     through the transform's origin (column 3) and its normal is the local y axis (column 1).
  ///   - orientation: the interface orientation the viewport is presented in.
  ///   - viewportSize: the viewport's size in points.
  /// - Returns: the world point (metres) where the camera ray through `point` meets the infinite plane;
  ///   `nil` when the ray is parallel to the plane, the plane lies behind the camera, or the plane's y
  ///   axis is zero or not finite.
  public func unprojectPoint(
    _ point: CGPoint, ontoPlane planeTransform: simd_float4x4, orientation: UIInterfaceOrientation,
    viewportSize: CGSize
  ) -> simd_float3? {
    let viewport = Viewport(size: viewportSize, orientation: orientation)
    let normalized = viewport.normalizedImagePoint(fromViewPoint: point, imageResolution: imageResolution)
    let ray = rayThroughImagePoint(pixel(fromNormalized: normalized))
    let (_, axisY, _, origin) = planeTransform.columns
    let normal = SIMD3<Double>(Double(axisY.x), Double(axisY.y), Double(axisY.z))
    let length = simd_length(normal)
    guard length > 0, length.isFinite, ray.direction.x.isFinite else { return nil }
    let plane = Plane(point: SIMD3(Double(origin.x), Double(origin.y), Double(origin.z)), normal: normal)
    guard let distance = plane.intersection(rayOrigin: ray.origin, direction: ray.direction) else {
      return nil
    }
    return simd_float3(ray.origin + distance * ray.direction)
  }

  /// The pixel of a normalized image point. Normalized image coordinates run from (0, 0) at the
  /// captured image's top-left corner to (1, 1) at its bottom-right corner (ARKit's); pixel
  /// coordinates have integers at pixel centres (OpenCV's, which recordings and intrinsics use), so
  /// the top-left corner is pixel (−0.5, −0.5).
  package func pixel(fromNormalized point: CGPoint) -> SIMD2<Double> {
    SIMD2(
      Double(point.x) * Double(cameraIntrinsics.width) - 0.5,
      Double(point.y) * Double(cameraIntrinsics.height) - 0.5)
  }

  /// The normalized image point of a pixel (the inverse of ``pixel(fromNormalized:)``).
  package func normalized(fromPixel pixel: SIMD2<Double>) -> CGPoint {
    CGPoint(
      x: (pixel.x + 0.5) / Double(cameraIntrinsics.width),
      y: (pixel.y + 0.5) / Double(cameraIntrinsics.height))
  }

  /// The camera ray through a pixel of the captured image, in world coordinates.
  /// - Parameter pixel: `(u, v)` in pixels of the captured image, integers at pixel centres (need not
  ///   lie inside the image).
  /// - Returns: `origin`, the camera centre in world coordinates (metres), and `direction`, the unit
  ///   world-space direction of the ray through `pixel`, pointing away from the camera.
  package func rayThroughImagePoint(_ pixel: SIMD2<Double>) -> (
    origin: SIMD3<Double>, direction: SIMD3<Double>
  ) {
    // The ray in the optical frame; in ARKit's camera frame y and z flip.
    let optical = cameraIntrinsics.ray(pixel)
    let inCamera = SIMD3(optical.x, -optical.y, -optical.z)
    return (worldFromCamera.translation, simd_normalize(worldFromCamera.rotate(inCamera)))
  }

  /// The pixel of the captured image at which a world point appears, by the pinhole model of
  /// ``intrinsics``.
  /// - Parameter world: a point in world coordinates, metres.
  /// - Returns: `(u, v)` in pixels, integers at pixel centres (possibly outside the image);
  ///   `nil` when the point is not in front of the camera (on or behind the camera's image plane through
  ///   its centre).
  package func projectToImage(_ world: SIMD3<Double>) -> SIMD2<Double>? {
    let inCamera = cameraFromWorld.apply(to: world)
    let depth = -inCamera.z
    guard depth > 0, depth.isFinite else { return nil }
    return cameraIntrinsics.project(SIMD3(inCamera.x, -inCamera.y, depth))
  }

  /// Clip space from ARKit's camera frame for a viewport (see the conventions at the top of this file).
  /// Rows: x and y from the normalized image coordinates mapped by the viewport's display transform, z the
  /// Metal depth, w the distance in front of the camera.
  private func clipFromCamera(viewport: Viewport, zNear: Double, zFar: Double) -> simd_double4x4 {
    let k = cameraIntrinsics
    let width = Double(k.width)
    let height = Double(k.height)
    // Homogeneous normalized image coordinates, each multiplied by w = −z:
    // s·w = (fx·x − cx·z) / W and t·w = (−fy·y − cy·z) / H for a camera-frame point (x, y, z).
    // Pixel centres are at integers (OpenCV's convention), so the image's corner is at −0.5.
    let sw = SIMD4(k.fx / width, 0, -(k.cx + 0.5) / width, 0)
    let tw = SIMD4(0, -k.fy / height, -(k.cy + 0.5) / height, 0)
    let w = SIMD4<Double>(0, 0, -1, 0)
    let display = viewport.displayTransform(imageResolution: imageResolution)
    let (a, b, c, d) = (Double(display.a), Double(display.b), Double(display.c), Double(display.d))
    let (tx, ty) = (Double(display.tx), Double(display.ty))
    // Normalized view coordinates (origin top-left, y down), times w.
    let pw = a * sw + c * tw + tx * w
    let qw = b * sw + d * tw + ty * w
    let depth: SIMD4<Double>
    if zFar == 0 || zFar.isInfinite {
      depth = SIMD4(0, 0, -1, -zNear)
    } else {
      depth = SIMD4(0, 0, zFar / (zNear - zFar), zNear * zFar / (zNear - zFar))
    }
    return simd_double4x4(rows: [2 * pw - w, w - 2 * qw, depth, w])
  }

  /// The rotation from ARKit's camera frame to the view frame of `orientation`: `Rz(−angle)` for the view
  /// rotation angle, built from exact quarter turns.
  private func viewFromCamera(_ orientation: UIInterfaceOrientation) -> simd_double4x4 {
    let (cosine, sine): (Double, Double) =
      switch orientation.clockwiseQuarterTurns {
      case 1: (0, -1)
      case 2: (-1, 0)
      case 3: (0, 1)
      default: (1, 0)
      }
    return simd_double4x4(
      SIMD4(cosine, sine, 0, 0), SIMD4(-sine, cosine, 0, 0), SIMD4(0, 0, 1, 0), SIMD4(0, 0, 0, 1))
  }
}
