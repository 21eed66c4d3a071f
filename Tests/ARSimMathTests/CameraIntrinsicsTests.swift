import ARSimMath
import Testing

@Suite struct CameraIntrinsicsTests {
  let k = CameraIntrinsics(fx: 520, fy: 515, cx: 319.5, cy: 239.5, width: 640, height: 480)

  @Test func backProjectionInvertsProjection() {
    for pixel in [SIMD2(0.0, 0.0), SIMD2(319.5, 239.5), SIMD2(639.0, 17.25), SIMD2(-40.0, 700.0)] {
      for depth in [0.3, 1.0, 7.5] {
        let point = k.backProject(pixel, depth: depth)
        #expect(abs(point.z - depth) < 1e-15)
        #expect(simd_length(k.project(point) - pixel) < 1e-9)
        // The ray has z = 1 and points at the same pixel.
        #expect(k.ray(pixel).z == 1)
        #expect(simd_length(k.project(k.ray(pixel)) - pixel) < 1e-9)
      }
    }
    #expect(k.ray(SIMD2(319.5, 239.5)) == SIMD3(0, 0, 1))
  }

  @Test func seesOnlyPointsInFrontAndInsideTheImage() {
    #expect(k.sees(SIMD3(0, 0, 1)))
    #expect(!k.sees(SIMD3(0, 0, -1)))
    #expect(k.sees(k.backProject(SIMD2(-0.49, 479.49), depth: 2)))
    #expect(!k.sees(k.backProject(SIMD2(-0.51, 10), depth: 2)))
    #expect(!k.sees(k.backProject(SIMD2(10, 479.51), depth: 2)))
  }

  @Test func scaledToADepthResolutionSeesTheSameRays() {
    // A phone's depth map: a quarter of the colour image's size per axis. Corners stay corners:
    // cx' = (319.5 + 0.5) / 4 - 0.5.
    let depth = k.scaled(toWidth: 160, height: 120)
    #expect(depth.width == 160 && depth.height == 120)
    #expect(depth.fx == 130 && depth.fy == 128.75 && depth.cx == 79.5 && depth.cy == 59.5)
    // A 3D point lands on corresponding pixels: u' = (u + 0.5) / 4 - 0.5.
    let point = SIMD3(0.3, -0.2, 2.0)
    #expect(simd_length(depth.project(point) - ((k.project(point) + 0.5) / 4 - 0.5)) < 1e-12)
    // The image's outer edges (pixel -0.5 and width - 0.5) map onto the depth map's.
    #expect(k.sees(k.backProject(SIMD2(-0.49, 479.49), depth: 2)))
    #expect(depth.sees(k.backProject(SIMD2(-0.49, 479.49), depth: 2)))
    #expect(!depth.sees(k.backProject(SIMD2(-0.51, 10), depth: 2)))
    // Up and back again gives the same numbers; a non-integer ratio (1920 to 256) too, within rounding.
    #expect(depth.scaled(toWidth: 640, height: 480) == k)
    let phone = CameraIntrinsics(fx: 1450.2, fy: 1450.2, cx: 962.1, cy: 721.3, width: 1920, height: 1440)
    let back = phone.scaled(toWidth: 256, height: 192).scaled(toWidth: 1920, height: 1440)
    #expect(abs(back.cx - phone.cx) < 1e-9 && abs(back.fy - phone.fy) < 1e-9)
    // The same size returns the intrinsics exactly, even where (cx + 0.5) - 0.5 would round.
    let odd = CameraIntrinsics(fx: 500, fy: 500, cx: 0.1 + 0.2, cy: 1e-17, width: 4, height: 3)
    #expect((odd.cy + 0.5) - 0.5 != odd.cy)
    #expect(odd.scaled(toWidth: 4, height: 3) == odd)
    // An unknown size changes nothing but fills the size in.
    let unsized = CameraIntrinsics(fx: 1, fy: 2, cx: 3, cy: 4, width: 0, height: 0)
    #expect(
      unsized.scaled(toWidth: 8, height: 6)
        == CameraIntrinsics(fx: 1, fy: 2, cx: 3, cy: 4, width: 8, height: 6))
  }
}
