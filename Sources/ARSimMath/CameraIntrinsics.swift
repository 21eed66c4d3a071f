/// Pinhole camera intrinsics in pixels, for images of `width` x `height`: the one camera model of
/// ARSim, shared by tracking, plane sampling, raycasts and evaluation.
///
/// A point `(x, y, z)` in the camera's *optical* frame (x right, y down, z forward, metres) projects to
/// the pixel `(fx·x/z + cx, fy·y/z + cy)`; pixel coordinates have their origin at the top-left corner
/// of the image and pixel centres at integers, as OpenCV's. Lens distortion is not modelled:
/// recordings carry undistorted images. A depth map at its own resolution has its own intrinsics,
/// ``scaled(toWidth:height:)`` from the colour camera's.
public struct CameraIntrinsics: Codable, Sendable, Hashable {
  /// Focal length along x, pixels.
  public var fx: Double
  /// Focal length along y, pixels.
  public var fy: Double
  /// Principal point x, pixels.
  public var cx: Double
  /// Principal point y, pixels.
  public var cy: Double
  /// Image width, pixels.
  public var width: Int
  /// Image height, pixels.
  public var height: Int

  /// Intrinsics from focal lengths, principal point and image size (pixels). Values are not checked
  /// here (ARSim's recording readers validate what they read).
  public init(fx: Double, fy: Double, cx: Double, cy: Double, width: Int, height: Int) {
    self.fx = fx
    self.fy = fy
    self.cx = cx
    self.cy = cy
    self.width = width
    self.height = height
  }

  /// The pixel at which a point in the optical frame (metres, `z > 0`) projects. Not checked: a point
  /// at or behind the camera gives an infinite or mirrored pixel.
  public func project(_ point: SIMD3<Double>) -> SIMD2<Double> {
    SIMD2(fx * point.x / point.z + cx, fy * point.y / point.z + cy)
  }

  /// The point at depth 1 on the viewing ray of `pixel`, in the optical frame: `((u − cx)/fx,
  /// (v − cy)/fy, 1)`. Not normalised (its z is 1, so scaling it by a z-depth gives the point).
  public func ray(_ pixel: SIMD2<Double>) -> SIMD3<Double> {
    SIMD3((pixel.x - cx) / fx, (pixel.y - cy) / fy, 1)
  }

  /// The unit viewing direction of `pixel` in the optical frame: ``ray(_:)`` normalised.
  public func bearing(_ pixel: SIMD2<Double>) -> SIMD3<Double> { simd_normalize(ray(pixel)) }

  /// The point in the optical frame (metres) seen at `pixel` at z-depth `depth` (metres along the
  /// optical axis, not along the ray): `ray(pixel) · depth`.
  public func backProject(_ pixel: SIMD2<Double>, depth: Double) -> SIMD3<Double> {
    ray(pixel) * depth
  }

  /// Whether a point in the optical frame (metres) is in front of the camera and projects inside the
  /// image (within half a pixel of the outermost pixel centres).
  public func sees(_ point: SIMD3<Double>) -> Bool {
    guard point.z > 1e-6 else { return false }
    let pixel = project(point)
    return pixel.x >= -0.5 && pixel.x <= Double(width) - 0.5 && pixel.y >= -0.5
      && pixel.y <= Double(height) - 0.5
  }

  /// These intrinsics for the same camera, the same field of view, sampled at `width` x `height`
  /// pixels (a phone's depth map under its colour image, a resized image). Image corners stay
  /// corners: with `s = width / self.width`, pixel centre `u` of this image lies at `(u + 0.5)·s − 0.5`
  /// in the new one, so `fx' = fx·s` and `cx' = (cx + 0.5)·s − 0.5` (likewise in y with the height
  /// ratio). The same size returns these intrinsics exactly; when this size is unknown (0) nothing is
  /// scaled and only the new size is filled in.
  public func scaled(toWidth width: Int, height: Int) -> CameraIntrinsics {
    guard self.width > 0, self.height > 0 else {
      var sized = self
      sized.width = width
      sized.height = height
      return sized
    }
    guard width != self.width || height != self.height else { return self }
    let sx = Double(width) / Double(self.width)
    let sy = Double(height) / Double(self.height)
    return CameraIntrinsics(
      fx: fx * sx, fy: fy * sy, cx: (cx + 0.5) * sx - 0.5, cy: (cy + 0.5) * sy - 0.5, width: width,
      height: height)
  }
}
