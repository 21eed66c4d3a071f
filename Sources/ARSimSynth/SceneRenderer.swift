import ARSim
import ARSimMath
import Foundation

/// Renders a ``SyntheticScene``: colour with anti-aliasing and motion blur, depth, IMU samples, and
/// exact ray casts for the ground truth. Deterministic: the same scene and seed give bit-identical
/// output whatever the number of threads.
///
/// Each pixel averages `render.supersamples` rays (a rotated grid for 4) cast at times spread over
/// the exposure; rays through the pinhole camera (pixel centre (u, v) has optical-frame direction
/// ((u − cx)/fx, (v − cy)/fy, 1)) meet the nearest surface; textures are sampled bilinearly from the
/// mip level the pixel footprint selects (each supersample dithers the level, which blends the two
/// nearest levels as trilinear filtering would). Rows render in parallel; each row's noise comes from its
/// own generator seeded by (seed, frame, row).
public final class SceneRenderer: Sendable {
  /// The scene, validated.
  public let scene: SyntheticScene
  /// The camera's motion.
  public let trajectory: CameraTrajectory
  /// The surfaces' geometry, in scene order.
  public let surfaces: [SurfaceGeometry]
  private let textures: TextureSet
  private let textureOfSurface: [Int]
  /// Half-planes `a·s + b·w + c ≥ 0` of every surface outline, surface after surface.
  private let edges: [SIMD4<Float>]
  private let edgeRanges: [SIMD2<Int32>]
  /// Per supersample: sub-pixel offset and time offset (seconds).
  private let samples: [(offset: SIMD2<Float>, time: Double)]
  private let driftPhase: Double

  /// Smallest z (metres) at which a surface is seen.
  static let nearClip = 1e-3

  /// Validates the scene and precomputes the textures and surface data.
  /// - Parameter source: names the scene in errors (normally its file).
  /// - Throws: ``SceneError`` when the scene is invalid.
  public init(scene: SyntheticScene, source: String = "scene") throws(SceneError) {
    try scene.validate(source: source)
    self.scene = scene
    trajectory = CameraTrajectory(scene.trajectory, seed: scene.seed)
    surfaces = scene.surfaces.map(SurfaceGeometry.init)
    let materialIndex = Dictionary(uniqueKeysWithValues: scene.materials.enumerated().map { ($1.name, $0) })
    textureOfSurface = scene.surfaces.map { materialIndex[$0.material]! }
    let images = scene.materials.map {
      ProceduralTexture.make($0, seed: scene.seed, texelsPerMetre: scene.render.texelsPerMetre)
    }
    textures = TextureSet(images: images, periods: scene.materials.map(\.texturePeriod), seed: scene.seed)
    var edges: [SIMD4<Float>] = []
    var ranges: [SIMD2<Int32>] = []
    for surface in surfaces {
      let start = Int32(edges.count)
      let outline = surface.outline
      for i in outline.indices {
        let a = outline[i]
        let e = outline[(i + 1) % outline.count] - a
        edges.append(SIMD4(Float(-e.y), Float(e.x), Float(e.y * a.x - e.x * a.y), 0))
      }
      ranges.append(SIMD2(start, Int32(edges.count)))
    }
    self.edges = edges
    edgeRanges = ranges
    let n = scene.render.supersamples
    let exposure = scene.sensors.exposureTime
    var samples: [(SIMD2<Float>, Double)] = []
    for k in 0..<n {
      let offset: SIMD2<Float>
      if n == 4 {
        offset =
          [SIMD2<Float>(0.125, -0.375), SIMD2(0.375, 0.125), SIMD2(-0.125, 0.375), SIMD2(-0.375, -0.125)][k]
      } else if n == 1 {
        offset = .zero
      } else {
        let y = (Double(k) + 0.5) * 0.618_033_988_75
        offset = SIMD2(Float((Double(k) + 0.5) / Double(n) - 0.5), Float(y - y.rounded(.down) - 0.5))
      }
      samples.append((offset, ((Double(k) + 0.5) / Double(n) - 0.5) * exposure))
    }
    self.samples = samples
    var random = SplitMix64(scene.seed, stableHash("exposure"))
    driftPhase = random.uniform(0, 2 * .pi)
  }

  /// `worldFromOptical` at `t` seconds.
  public func pose(at t: Double) -> RigidTransform { trajectory.pose(at: t) }

  /// The image gain at `t`: exposure drift times the dark stretches.
  public func gain(at t: Double) -> Double {
    let sensors = scene.sensors
    var gain = 1 + sensors.exposureDrift * sin(2 * .pi * t / sensors.exposureDriftPeriod + driftPhase)
    for stretch in sensors.darkStretches where t > stretch.start && t < stretch.end {
      var weight = 1.0
      if stretch.ramp > 0 {
        let x = min(1, (t - stretch.start) / stretch.ramp, (stretch.end - t) / stretch.ramp)
        weight = x * x * (3 - 2 * x)
      }
      gain *= 1 - (1 - stretch.gain) * weight
    }
    return gain
  }

  /// The nearest surface hit by the ray through image point (`u`, `v`) (pixels) of a camera at
  /// `pose` (`worldFromOptical`), in double precision; nil when the ray hits nothing.
  public func raycast(from pose: RigidTransform, u: Double, v: Double) -> SurfaceHit? {
    let k = scene.camera
    let direction = pose.rotate(SIMD3((u - k.cx) / k.fx, (v - k.cy) / k.fy, 1))
    var best: SurfaceHit?
    for (i, surface) in surfaces.enumerated() {
      // The direction's optical z is 1, so the ray parameter is the z-depth.
      guard let z = surface.plane.intersection(rayOrigin: pose.translation, direction: direction),
        z > Self.nearClip, z < (best?.depth ?? .infinity)
      else { continue }
      let point = pose.translation + z * direction
      if surface.contains(surface.surfaceCoordinates(point)) {
        best = SurfaceHit(surface: i, world: point, depth: z)
      }
    }
    return best
  }

  /// IMU samples at `sensors.imu.rate` from time 0 through `end` (seconds): specific force and angular
  /// rate in the optical frame, with the sensor's noise and bias. Empty without an IMU.
  public func imuSamples(through end: Double) -> [IMUSample] {
    guard let imu = scene.sensors.imu else { return [] }
    var samples: [IMUSample] = []
    let count = Int((end * imu.rate + 1e-9).rounded(.down))
    guard count >= 0 else { return [] }
    for j in 0...count {
      let t = Double(j) / imu.rate
      var random = SplitMix64(scene.seed, stableHash("imu"), UInt64(j))
      let noiseA = SIMD3(random.gaussian(), random.gaussian(), random.gaussian()) * imu.accelerometerNoise
      let noiseG = SIMD3(random.gaussian(), random.gaussian(), random.gaussian()) * imu.gyroNoise
      samples.append(
        IMUSample(
          timestamp: t, acceleration: trajectory.specificForce(at: t) + imu.accelerometerBias + noiseA,
          rotationRate: trajectory.angularVelocity(at: t) + imu.gyroBias + noiseG))
    }
    return samples
  }

  /// Renders frame `index` (at `scene.time(ofFrame: index)`).
  public func render(frame index: Int) -> RenderedFrame {
    let t = scene.time(ofFrame: index)
    let camera = scene.camera
    let (width, height) = (camera.width, camera.height)
    let surfaceCount = surfaces.count
    let n = samples.count
    // Per band of rows (one unless the shutter rolls): views 0..<n are the supersamples; view n is the
    // pixel-centre ray at the band's time.
    let phone = scene.sensors.phone
    let bands = (phone?.readoutTime ?? 0) > 0 ? PhoneProfile.shutterBands : 1
    var views: [ViewSurface] = []
    views.reserveCapacity(bands * (n + 1) * surfaceCount)
    let focal = (camera.fx * camera.fy).squareRoot()
    for band in 0..<bands {
      let rowTime = t + (bands > 1 ? phone!.rowTimeOffset(band: band) : 0)
      for view in 0...n {
        let pose = trajectory.pose(at: view < n ? rowTime + samples[view].time : rowTime)
        for (s, surface) in surfaces.enumerated() {
          views.append(
            ViewSurface(
              surface, pose: pose, lighting: scene.lighting, texture: textures.entries[textureOfSurface[s]],
              lodScale: Double(textures.entries[textureOfSurface[s]].texelsPerMetre)
                / (focal * Double(n).squareRoot()),
              edges: edgeRanges[s], pixelMargin: SIMD2(1 / camera.fx, 1 / camera.fy)))
        }
      }
    }
    var rgb = [UInt8](repeating: 0, count: 3 * width * height)
    // A phone's depth has its own resolution (``phoneDepth``); otherwise depth is rendered per pixel.
    let hasDepth = scene.sensors.depth != nil && phone == nil
    var depth = [Float](repeating: .nan, count: hasDepth ? width * height : 0)
    var ids = [Int16](repeating: -1, count: width * height)
    var counts = [Int32](repeating: 0, count: height * surfaceCount)
    let holes = depthHoleBlobs(frame: index)
    let parameters = RowParameters(
      frame: index, width: width, surfaceCount: surfaceCount, samples: n,
      fx: Float(camera.fx), fy: Float(camera.fy), cx: Float(camera.cx), cy: Float(camera.cy),
      bands: bands, height: height,
      scale: SIMD4(SIMD3<Float>(phone?.whiteBalance(at: t, seed: scene.seed) ?? .one), 0)
        * Float(gain(at: t) / Double(n)),
      noise: Float(scene.sensors.imageNoise),
      background: SIMD4(SIMD3<Float>(scene.background * 255), 0))
    views.withUnsafeBufferPointer { viewBuffer in
      edges.withUnsafeBufferPointer { edgeBuffer in
        rgb.withUnsafeMutableBufferPointer { rgbBuffer in
          depth.withUnsafeMutableBufferPointer { depthBuffer in
            ids.withUnsafeMutableBufferPointer { idBuffer in
              counts.withUnsafeMutableBufferPointer { countBuffer in
                let buffers = RowBuffers(
                  views: viewBuffer.baseAddress!, edges: edgeBuffer.baseAddress!, rgb: rgbBuffer.baseAddress!,
                  depth: hasDepth ? depthBuffer.baseAddress! : nil, ids: idBuffer.baseAddress!,
                  counts: countBuffer.baseAddress!,
                  texels: UnsafePointer(textures.texels.baseAddress!), offsets: samples.map(\.offset))
                DispatchQueue.concurrentPerform(iterations: height) { y in
                  renderRow(y, parameters, buffers, holes: holes)
                }
              }
            }
          }
        }
      }
    }
    var visible = [Int](repeating: 0, count: surfaceCount)
    for y in 0..<height {
      for s in 0..<surfaceCount { visible[s] += Int(counts[y * surfaceCount + s]) }
    }
    let pose = trajectory.pose(at: t)
    let phoneDepth = phoneDepth(frame: index, pose: pose)
    return RenderedFrame(
      index: index, timestamp: t, pose: pose, image: RGBImage(width: width, height: height, pixels: rgb),
      depth: phoneDepth?.0 ?? (hasDepth ? DepthImage(width: width, height: height, metres: depth) : nil),
      confidence: phoneDepth?.1, surfaceIndex: ids, visiblePixels: visible)
  }

  /// The depth-hole discs of a frame: (centre x, centre y, radius²) in pixels.
  private func depthHoleBlobs(frame: Int) -> [SIMD3<Float>] {
    guard let depth = scene.sensors.depth, depth.holePattern == .blobs, depth.holes > 0 else { return [] }
    var random = SplitMix64(scene.seed, stableHash("holes"), UInt64(frame))
    let (width, height) = (Double(scene.camera.width), Double(scene.camera.height))
    let radius = depth.holeSize * width
    // Radii uniform in [0.5, 1.5]·radius have mean square 13/12·radius².
    let expected = depth.holes * width * height / (Double.pi * radius * radius * 13 / 12)
    var count = Int(expected.rounded(.down))
    if random.uniform() < expected - Double(count) { count += 1 }
    return (0..<count).map { _ in
      let r = radius * random.uniform(0.5, 1.5)
      return SIMD3(Float(random.uniform(0, width)), Float(random.uniform(0, height)), Float(r * r))
    }
  }

  private func renderRow(_ y: Int, _ p: RowParameters, _ b: RowBuffers, holes: [SIMD3<Float>]) {
    var random = SplitMix64(scene.seed, stableHash("row"), UInt64(p.frame), UInt64(y))
    let depthSensor = scene.sensors.depth
    let depthNoise = Float(depthSensor?.noise ?? 0)
    let maxRange = Float(depthSensor?.maxRange ?? .infinity)
    let pixelHoles = depthSensor?.holePattern == .pixels ? depthSensor!.holes : 0
    let rowHoles = holes.filter { ($0.y - Float(y)) * ($0.y - Float(y)) < $0.z }
    let yCentre = (Float(y) - p.cy) / p.fy
    let counts = b.counts + y * p.surfaceCount
    let rgb = b.rgb + 3 * y * p.width
    let ids = b.ids + y * p.width
    let depth = b.depth.map { $0 + y * p.width }
    let bandViews = b.views + (y * p.bands / p.height) * (p.samples + 1) * p.surfaceCount
    let centreViews = bandViews + p.samples * p.surfaceCount
    for x in 0..<p.width {
      var colour = SIMD4<Float>.zero
      for k in 0..<p.samples {
        let offset = b.offsets[k]
        let rx = (Float(x) + offset.x - p.cx) / p.fx
        let ry = (Float(y) + offset.y - p.cy) / p.fy
        let views = bandViews + k * p.surfaceCount
        let hit = trace(views, b.edges, p.surfaceCount, rx, ry)
        if hit.index >= 0 {
          let view = views[hit.index]
          let footprint = view.lodScale * hit.z * (rx * rx + ry * ry + 1) / abs(hit.denominator)
          let texel = sampleTexture(
            b.texels, view.texture, s: hit.s, w: hit.w, lod: fastLog2(footprint),
            dither: (Float(k) + 0.5) / Float(p.samples))
          colour += texel * view.shade
        } else {
          colour += p.background
        }
      }
      let noise = SIMD4(random.fastGaussian(), random.fastGaussian(), random.fastGaussian(), 0)
      let value = colour * p.scale + noise * p.noise + 0.5
      let clamped = value.clamped(lowerBound: SIMD4(repeating: 0), upperBound: SIMD4(repeating: 255.49))
      rgb[3 * x] = UInt8(clamped.x)
      rgb[3 * x + 1] = UInt8(clamped.y)
      rgb[3 * x + 2] = UInt8(clamped.z)

      let centre = trace(centreViews, b.edges, p.surfaceCount, (Float(x) - p.cx) / p.fx, yCentre)
      ids[x] = Int16(centre.index)
      if centre.index >= 0 { counts[centre.index] += 1 }
      guard let depth else { continue }
      var z = centre.index >= 0 ? centre.z : .nan
      if depthNoise > 0 { z += depthNoise * z * z * random.fastGaussian() }
      if !(z <= maxRange) { z = .nan }
      if pixelHoles > 0, random.uniform() < pixelHoles { z = .nan }
      for hole in rowHoles {
        let dx = Float(x) - hole.x
        let dy = Float(y) - hole.y
        if dx * dx + dy * dy < hole.z { z = .nan }
      }
      depth[x] = z
    }
  }
}

/// What a row renders with.
private struct RowParameters {
  var frame: Int
  var width: Int
  var surfaceCount: Int
  var samples: Int
  var fx: Float
  var fy: Float
  var cx: Float
  var cy: Float
  /// Bands of rows with their own views (rolling shutter), and the image height.
  var bands: Int
  var height: Int
  /// Per channel: white balance · gain / samples (texels and the background are in grey levels, 0...255).
  var scale: SIMD4<Float>
  /// Image noise standard deviation in grey levels.
  var noise: Float
  var background: SIMD4<Float>
}

/// The frame's buffers, borrowed for the duration of a render; rows write disjoint parts.
private struct RowBuffers: @unchecked Sendable {
  var views: UnsafePointer<ViewSurface>
  var edges: UnsafePointer<SIMD4<Float>>
  var rgb: UnsafeMutablePointer<UInt8>
  var depth: UnsafeMutablePointer<Float>?
  var ids: UnsafeMutablePointer<Int16>
  var counts: UnsafeMutablePointer<Int32>
  var texels: UnsafePointer<SIMD4<UInt8>>
  var offsets: [SIMD2<Float>]
}

/// A surface seen from one camera pose, in the optical frame, in single precision. A ray with
/// direction `r = (x, y, 1)` meets the plane at z = `num / (n · r)`; there the surface coordinates
/// are `s = z (u · r) − uo` and `w = z (v · r) − vo`.
private struct ViewSurface {
  var nx, ny, nz, num: Float
  var ux, uy, uz, uo: Float
  var vx, vy, vz, vo: Float
  var shade: Float
  var lodScale: Float
  var edgeStart: Int32
  var edgeEnd: Int32
  var texture: TextureSet.Entry
  /// The bounding box of the surface's image in ray coordinates (x, y of `r`), empty (min > max) when
  /// it is behind the camera.
  var minX, maxX, minY, maxY: Float

  init(
    _ surface: SurfaceGeometry, pose: RigidTransform, lighting: SyntheticScene.Lighting,
    texture: TextureSet.Entry,
    lodScale: Double, edges: SIMD2<Int32>, pixelMargin: SIMD2<Double>
  ) {
    let opticalFromWorld = pose.rotation.conjugate
    let n = opticalFromWorld.act(surface.plane.normal)
    let u = opticalFromWorld.act(surface.xAxis)
    let v = opticalFromWorld.act(surface.yAxis)
    let origin = opticalFromWorld.act(surface.origin - pose.translation)
    (nx, ny, nz, num) = (Float(n.x), Float(n.y), Float(n.z), Float(simd_dot(n, origin)))
    (ux, uy, uz, uo) = (Float(u.x), Float(u.y), Float(u.z), Float(simd_dot(u, origin)))
    (vx, vy, vz, vo) = (Float(v.x), Float(v.y), Float(v.z), Float(simd_dot(v, origin)))
    // The camera is on the normal's side when the origin, seen from the camera, is behind the plane.
    let facing = simd_dot(n, origin) < 0 ? surface.plane.normal : -surface.plane.normal
    let light = simd_normalize(lighting.direction)
    shade = Float(lighting.ambient + lighting.diffuse * max(0, simd_dot(facing, light)))
    self.lodScale = Float(lodScale)
    edgeStart = edges.x
    edgeEnd = edges.y
    self.texture = texture
    // Clip the outline to z ≥ near (Sutherland–Hodgman) and bound its projection.
    let near = SceneRenderer.nearClip
    let corners = surface.vertices.map { opticalFromWorld.act($0 - pose.translation) }
    var box = (minX: Double.infinity, maxX: -Double.infinity, minY: Double.infinity, maxY: -Double.infinity)
    func add(_ p: SIMD3<Double>) {
      box = (
        min(box.minX, p.x / p.z), max(box.maxX, p.x / p.z), min(box.minY, p.y / p.z), max(box.maxY, p.y / p.z)
      )
    }
    for (i, a) in corners.enumerated() {
      let b = corners[(i + 1) % corners.count]
      if a.z >= near { add(a) }
      if (a.z >= near) != (b.z >= near) { add(a + (b - a) * ((near - a.z) / (b.z - a.z))) }
    }
    let margin = pixelMargin
    (minX, maxX) = (Float(box.minX - margin.x), Float(box.maxX + margin.x))
    (minY, maxY) = (Float(box.minY - margin.y), Float(box.maxY + margin.y))
  }
}

/// The nearest surface along the ray `(x, y, 1)`: its index (−1 for none), z, surface coordinates
/// and `n · r`.
@inline(__always)
private func trace(
  _ views: UnsafePointer<ViewSurface>, _ edges: UnsafePointer<SIMD4<Float>>, _ count: Int, _ x: Float,
  _ y: Float
) -> (index: Int, z: Float, s: Float, w: Float, denominator: Float) {
  var best = (index: -1, z: Float.infinity, s: Float(0), w: Float(0), denominator: Float(1))
  for i in 0..<count {
    let view = views[i]
    guard x >= view.minX, x <= view.maxX, y >= view.minY, y <= view.maxY else { continue }
    let denominator = view.nx * x + view.ny * y + view.nz
    let z = view.num / denominator
    guard z > Float(SceneRenderer.nearClip), z < best.z else { continue }
    let s = z * (view.ux * x + view.uy * y + view.uz) - view.uo
    let w = z * (view.vx * x + view.vy * y + view.vz) - view.vo
    var inside = true
    for e in Int(view.edgeStart)..<Int(view.edgeEnd) {
      let edge = edges[e]
      if edge.x * s + edge.y * w + edge.z < 0 {
        inside = false
        break
      }
    }
    if inside { best = (i, z, s, w, denominator) }
  }
  return best
}

/// log2 of a positive normal float to about ±0.005 (exponent plus a quadratic in the mantissa).
@inline(__always)
private func fastLog2(_ x: Float) -> Float {
  let bits = x.bitPattern
  let exponent = Float(Int32(bitPattern: (bits >> 23) & 0xFF) - 127)
  let m = Float(bitPattern: (bits & 0x7F_FFFF) | 0x3F80_0000)
  return exponent + (-0.344_848_43 * m + 2.024_665_78) * m - 0.674_877_59
}
