import ARSim
import ARSimMath
import Foundation

/// A synthetic scene: planar textured surfaces, a camera moving along a keyframed trajectory, and a
/// sensor model. Read from JSON (``load(path:)``; the format is documented in Datasets/README.md) and
/// rendered by ``SceneRenderer`` and ``SessionGenerator``.
///
/// The ground-truth world is in metres, right-handed, +y up, gravity along (0, −1, 0). Keys with a
/// default may be left out of the JSON; the defaults are the initial values stated here.
public struct SyntheticScene: Codable, Sendable, Equatable {
  /// A name for summaries. Default "scene".
  public var name: String = "scene"
  /// Seeds every random choice (textures, shake, noise, holes, taps). Default 1.
  public var seed: UInt64 = 1
  /// Pinhole intrinsics (pixels) and image size. Required.
  public var camera: CameraIntrinsics
  /// Frames per second. Default 30.
  public var frameRate: Double = 30
  /// Seconds; frames are rendered at `i / frameRate` for `0 ≤ i / frameRate ≤ duration`. Required.
  public var duration: Double
  /// Linear RGB in [0, 1] of rays that hit nothing. Default (0.62, 0.66, 0.72).
  public var background = SIMD3<Double>(0.62, 0.66, 0.72)
  /// Shading. Default ``Lighting/init()``.
  public var lighting = Lighting()
  /// The materials that surfaces name. Required (may be empty only when there are no surfaces).
  public var materials: [Material]
  /// The planar surfaces. Required.
  public var surfaces: [Surface]
  /// The camera's path. Required.
  public var trajectory: Trajectory
  /// Image, depth and inertial sensor models. Default: no depth, no IMU, mild image noise.
  public var sensors = SensorModel()
  /// Rendering quality and ground-truth sampling. Default ``RenderOptions/init()``.
  public var render = RenderOptions()

  /// Creates a scene; the remaining properties take their defaults.
  public init(
    camera: CameraIntrinsics, duration: Double, materials: [Material], surfaces: [Surface],
    trajectory: Trajectory
  ) {
    self.camera = camera
    self.duration = duration
    self.materials = materials
    self.surfaces = surfaces
    self.trajectory = trajectory
  }

  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    camera = try c.decode(CameraIntrinsics.self, forKey: .camera)
    duration = try c.decode(Double.self, forKey: .duration)
    materials = try c.decode([Material].self, forKey: .materials)
    surfaces = try c.decode([Surface].self, forKey: .surfaces)
    trajectory = try c.decode(Trajectory.self, forKey: .trajectory)
    name = try c.value(.name, default: name)
    seed = try c.value(.seed, default: seed)
    frameRate = try c.value(.frameRate, default: frameRate)
    background = try c.value(.background, default: background)
    lighting = try c.value(.lighting, default: lighting)
    sensors = try c.value(.sensors, default: sensors)
    render = try c.value(.render, default: render)
  }

  /// The number of frames: `floor(duration · frameRate) + 1`.
  public var frameCount: Int { Int((duration * frameRate + 1e-9).rounded(.down)) + 1 }

  /// The time of frame `index` in seconds: `index / frameRate`, plus the phone profile's capture jitter.
  public func time(ofFrame index: Int) -> Double {
    Double(index) / frameRate
      + (sensors.phone?.captureOffset(ofFrame: index, seed: seed, frameRate: frameRate) ?? 0)
  }

  /// Gravity's direction in the ground-truth world: (0, −1, 0).
  public static let gravityDirection = SIMD3<Double>(0, -1, 0)
  /// Standard gravity in m/s², the magnitude the accelerometer model uses.
  public static let standardGravity = 9.81

  /// What a surface is, as plane detection would classify it.
  public enum SurfaceLabel: String, Codable, Sendable, CaseIterable, StrictStringEnum {
    case floor, table, wall, ceiling, seat, door, window, other
  }

  /// A planar surface: a rectangle or a convex polygon, with a material.
  public struct Surface: Codable, Sendable, Equatable {
    /// Identifier written to the ground truth (`planes.json`, `taps.txt`); unique in the scene.
    public var id: Int
    /// Classification.
    public var label: SurfaceLabel
    /// The name of a material in ``SyntheticScene/materials``.
    public var material: String
    /// The shape when it is a rectangle (exactly one of `rectangle` and `polygon` is given).
    public var rectangle: Rectangle?
    /// The shape when it is a convex polygon: three or more coplanar world points (metres) in order;
    /// the texture's x axis runs from the first vertex to the second.
    public var polygon: [SIMD3<Double>]?

    /// Creates a surface.
    public init(
      id: Int, label: SurfaceLabel, material: String, rectangle: Rectangle? = nil,
      polygon: [SIMD3<Double>]? = nil
    ) {
      self.id = id
      self.label = label
      self.material = material
      self.rectangle = rectangle
      self.polygon = polygon
    }
  }

  /// A rectangle in the world, metres.
  public struct Rectangle: Codable, Sendable, Equatable {
    /// Centre point.
    public var center: SIMD3<Double>
    /// Normal (normalised when used; need not be unit).
    public var normal: SIMD3<Double>
    /// The direction of the `width` side (projected into the plane and normalised when used); the
    /// `height` side runs along `normal × xAxis`.
    public var xAxis: SIMD3<Double>
    /// Side lengths in metres.
    public var width: Double
    public var height: Double

    /// Creates a rectangle.
    public init(
      center: SIMD3<Double>, normal: SIMD3<Double>, xAxis: SIMD3<Double>, width: Double, height: Double
    ) {
      self.center = center
      self.normal = normal
      self.xAxis = xAxis
      self.width = width
      self.height = height
    }
  }

  /// The kinds of procedural material.
  public enum MaterialKind: String, Codable, Sendable, CaseIterable, StrictStringEnum {
    /// Random overlapping discs of random palette colours ("dead leaves"); `scale` is the largest
    /// disc radius (default 0.12 m), the smallest is `scale / 16`.
    case deadLeaves
    /// Fractal gradient (Perlin) noise between `colors[0]` and `colors[1]`; `scale` is the
    /// wavelength of the coarsest octave (default 0.5 m), `octaves` (default 6) halve it in turn.
    case noise
    /// Square tiles of side `scale` (default 0.3 m) in `colors[0]`, each tinted by up to
    /// ±`contrast` (default 0.15), separated by grout lines `lineWidth` wide (default 0.008 m) in
    /// `colors[1]`, with a faint speckle.
    case tiles
    /// Random straight strokes `lineWidth` wide (default 0.004 m) and up to `scale` long (default
    /// 0.12 m), `density` per square metre (default 300), in `colors[1...]` on `colors[0]`.
    case strokes
    /// Near-textureless paint: `colors[0]` with low-frequency noise of relative amplitude `contrast`
    /// (default 0.01) and wavelength `scale` (default 1 m).
    case paint
  }

  /// A procedural material. Textures are functions of the surface coordinate in metres, so they are
  /// fixed to the surface, and repeat every `period` metres.
  public struct Material: Codable, Sendable, Equatable {
    /// The name surfaces use; unique.
    public var name: String
    /// The pattern.
    public var type: MaterialKind
    /// Linear RGB colours in [0, 1]; their meaning depends on `type`. Default: greys for
    /// `deadLeaves`, a per-type pair otherwise.
    public var colors: [SIMD3<Double>]?
    /// The pattern's characteristic length in metres (see ``MaterialKind``).
    public var scale: Double?
    /// Colour variation for `tiles` and `paint` (see ``MaterialKind``).
    public var contrast: Double?
    /// Octaves of `noise`.
    public var octaves: Int?
    /// Strokes per square metre for `strokes`.
    public var density: Double?
    /// Line width in metres for `tiles` (grout) and `strokes`.
    public var lineWidth: Double?
    /// The texture repeats every `period` metres in both directions. Default 2.
    public var period: Double?

    /// Creates a material with the defaults of its type.
    public init(name: String, type: MaterialKind, colors: [SIMD3<Double>]? = nil, scale: Double? = nil) {
      self.name = name
      self.type = type
      self.colors = colors
      self.scale = scale
    }
  }

  /// Shading: `ambient + diffuse · max(0, n · direction)`, with the normal `n` facing the camera.
  public struct Lighting: Codable, Sendable, Equatable {
    /// Default 0.55.
    public var ambient = 0.55
    /// Default 0.45.
    public var diffuse = 0.45
    /// The direction towards the light (normalised when used). Default (0.35, 1, 0.25).
    public var direction = SIMD3<Double>(0.35, 1, 0.25)

    /// The defaults.
    public init() {}

    public init(from decoder: any Decoder) throws {
      let c = try decoder.container(keyedBy: CodingKeys.self)
      ambient = try c.value(.ambient, default: ambient)
      diffuse = try c.value(.diffuse, default: diffuse)
      direction = try c.value(.direction, default: direction)
    }
  }

  /// The camera's path: keyframes interpolated by natural cubic splines (continuous acceleration),
  /// plus handheld shake.
  ///
  /// When every keyframe has `lookAt`, positions and look-at targets are splined and the camera looks
  /// at the target with the world's +y up. Otherwise every keyframe's orientation (given, or from its
  /// look-at) is splined as quaternion components (signs aligned) and normalised.
  public struct Trajectory: Codable, Sendable, Equatable {
    /// Two or more keyframes in increasing time; the first at or before 0, the last at or after the
    /// scene's duration.
    public var keyframes: [Keyframe]
    /// Handheld shake. Default none.
    public var shake: Shake?

    /// Creates a trajectory.
    public init(keyframes: [Keyframe], shake: Shake? = nil) {
      self.keyframes = keyframes
      self.shake = shake
    }
  }

  /// A camera keyframe: exactly one of `lookAt` and `orientation`.
  public struct Keyframe: Codable, Sendable, Equatable {
    /// Seconds.
    public var time: Double
    /// The camera centre in the world, metres.
    public var position: SIMD3<Double>
    /// A world point the optical axis goes through (the image's up is towards the world's +y).
    public var lookAt: SIMD3<Double>?
    /// The rotation of the optical frame (x right, y down, z forward) to the world, as a quaternion
    /// `[qx, qy, qz, qw]` (TUM order; normalised when used).
    public var orientation: SIMD4<Double>?

    /// Creates a keyframe.
    public init(
      time: Double, position: SIMD3<Double>, lookAt: SIMD3<Double>? = nil, orientation: SIMD4<Double>? = nil
    ) {
      self.time = time
      self.position = position
      self.lookAt = lookAt
      self.orientation = orientation
    }
  }

  /// Handheld shake: per axis, a seeded sum of sinusoids at about the given frequencies with
  /// amplitudes falling as 1/f, so the motion is smooth and differentiable. Position shake is added in the world; rotation shake is a
  /// rotation vector applied in the camera frame.
  public struct Shake: Codable, Sendable, Equatable {
    /// Typical (root-mean-square) position displacement per axis, metres. Default 0.003.
    public var position = 0.003
    /// Typical rotation per axis, radians. Default 0.004.
    public var rotation = 0.004
    /// Base frequencies in Hz, each jittered by ±15% per axis. Default [0.4, 1.1, 2.3, 4.7].
    public var frequencies: [Double] = [0.4, 1.1, 2.3, 4.7]

    /// The defaults.
    public init() {}

    public init(from decoder: any Decoder) throws {
      let c = try decoder.container(keyedBy: CodingKeys.self)
      position = try c.value(.position, default: position)
      rotation = try c.value(.rotation, default: rotation)
      frequencies = try c.value(.frequencies, default: frequencies)
    }
  }

  /// The sensors: the colour camera always; depth and IMU when given.
  public struct SensorModel: Codable, Sendable, Equatable {
    /// Standard deviation of additive image noise in grey levels (0...255), per channel. Default 1.5.
    public var imageNoise = 1.5
    /// Exposure time in seconds; the supersamples are spread over it (motion blur), centred on the
    /// frame time. Default 0.006.
    public var exposureTime = 0.006
    /// Relative amplitude of a slow sinusoidal gain change (auto-exposure drift). Default 0.04.
    public var exposureDrift = 0.04
    /// Period of the drift in seconds. Default 9.
    public var exposureDriftPeriod = 9.0
    /// Intervals during which the image gain drops. Default none.
    public var darkStretches: [DarkStretch] = []
    /// The depth sensor, registered to the colour camera. Default none (a monocular session).
    public var depth: DepthSensor?
    /// The inertial sensor, at the camera's optical frame. Default none.
    public var imu: IMUSensor?
    /// A phone's sensor effects on top of these models. Default none.
    public var phone: PhoneProfile?

    /// The defaults.
    public init() {}

    public init(from decoder: any Decoder) throws {
      let c = try decoder.container(keyedBy: CodingKeys.self)
      imageNoise = try c.value(.imageNoise, default: imageNoise)
      exposureTime = try c.value(.exposureTime, default: exposureTime)
      exposureDrift = try c.value(.exposureDrift, default: exposureDrift)
      exposureDriftPeriod = try c.value(.exposureDriftPeriod, default: exposureDriftPeriod)
      darkStretches = try c.value(.darkStretches, default: darkStretches)
      depth = try c.decodeIfPresent(DepthSensor.self, forKey: .depth)
      imu = try c.decodeIfPresent(IMUSensor.self, forKey: .imu)
      phone = try c.decodeIfPresent(PhoneProfile.self, forKey: .phone)
    }
  }

  /// An interval of low light: the image gain is multiplied by `gain` from `start` to `end`
  /// (seconds), with smooth ramps of `ramp` seconds inside the interval.
  public struct DarkStretch: Codable, Sendable, Equatable {
    /// Seconds.
    public var start: Double
    /// Seconds.
    public var end: Double
    /// Gain factor in [0, 1]. Default 0.2.
    public var gain = 0.2
    /// Ramp length in seconds. Default 0.3.
    public var ramp = 0.3

    /// Creates a dark stretch.
    public init(start: Double, end: Double, gain: Double = 0.2) {
      self.start = start
      self.end = end
      self.gain = gain
    }

    public init(from decoder: any Decoder) throws {
      let c = try decoder.container(keyedBy: CodingKeys.self)
      start = try c.decode(Double.self, forKey: .start)
      end = try c.decode(Double.self, forKey: .end)
      gain = try c.value(.gain, default: gain)
      ramp = try c.value(.ramp, default: ramp)
    }
  }

  /// Where depth holes go.
  public enum HolePattern: String, Codable, Sendable, CaseIterable, StrictStringEnum {
    /// Random discs of `holeSize` radius (fraction of the image width), re-drawn every frame.
    case blobs
    /// Independent random pixels.
    case pixels
  }

  /// A depth sensor model: z-depth (along the optical axis) with noise and holes.
  public struct DepthSensor: Codable, Sendable, Equatable {
    /// `k` in the noise's standard deviation `k · d²` (d in metres, per metre). Default 0.0012.
    public var noise = 0.0012
    /// Fraction of pixels without depth (about, for blobs). Default 0.01.
    public var holes = 0.01
    /// How holes are placed. Default blobs.
    public var holePattern = HolePattern.blobs
    /// Blob radius as a fraction of the image width. Default 0.03.
    public var holeSize = 0.03
    /// Metres; deeper surfaces read as unknown. Default 5.
    public var maxRange = 5.0

    /// The defaults.
    public init() {}

    public init(from decoder: any Decoder) throws {
      let c = try decoder.container(keyedBy: CodingKeys.self)
      noise = try c.value(.noise, default: noise)
      holes = try c.value(.holes, default: holes)
      holePattern = try c.value(.holePattern, default: holePattern)
      holeSize = try c.value(.holeSize, default: holeSize)
      maxRange = try c.value(.maxRange, default: maxRange)
    }
  }

  /// An IMU model, in the camera's optical frame: accelerometer (specific force, m/s²) and gyroscope
  /// (rad/s), each with white noise and a constant bias.
  public struct IMUSensor: Codable, Sendable, Equatable {
    /// Samples per second, at least 100. Default 200.
    public var rate = 200.0
    /// Accelerometer noise standard deviation, m/s². Default 0.02.
    public var accelerometerNoise = 0.02
    /// Gyroscope noise standard deviation, rad/s. Default 0.0017.
    public var gyroNoise = 0.0017
    /// Accelerometer bias, m/s². Default zero.
    public var accelerometerBias = SIMD3<Double>.zero
    /// Gyroscope bias, rad/s. Default zero.
    public var gyroBias = SIMD3<Double>.zero

    /// The defaults.
    public init() {}

    public init(from decoder: any Decoder) throws {
      let c = try decoder.container(keyedBy: CodingKeys.self)
      rate = try c.value(.rate, default: rate)
      accelerometerNoise = try c.value(.accelerometerNoise, default: accelerometerNoise)
      gyroNoise = try c.value(.gyroNoise, default: gyroNoise)
      accelerometerBias = try c.value(.accelerometerBias, default: accelerometerBias)
      gyroBias = try c.value(.gyroBias, default: gyroBias)
    }
  }

  /// Rendering quality and ground-truth sampling.
  public struct RenderOptions: Codable, Sendable, Equatable {
    /// Rays per pixel (1...16), on a rotated grid when 4, spread over the exposure time. Default 4.
    public var supersamples = 4
    /// Texture resolution in texels per metre at the finest mip level (16...2048). Default 512.
    public var texelsPerMetre = 512.0
    /// Seconds between ground-truth taps. Default 0.5.
    public var tapInterval = 0.5

    /// The defaults.
    public init() {}

    public init(from decoder: any Decoder) throws {
      let c = try decoder.container(keyedBy: CodingKeys.self)
      supersamples = try c.value(.supersamples, default: supersamples)
      texelsPerMetre = try c.value(.texelsPerMetre, default: texelsPerMetre)
      tapInterval = try c.value(.tapInterval, default: tapInterval)
    }
  }
}

extension KeyedDecodingContainer {
  /// The value at `key`, or `defaultValue` when the key is absent.
  func value<T: Decodable>(_ key: Key, default defaultValue: T) throws -> T {
    try decodeIfPresent(T.self, forKey: key) ?? defaultValue
  }
}

extension SyntheticScene {
  /// The scene with images `factor` times the size (rounded to whole pixels): focal lengths scale by
  /// the size ratio and the principal point maps as `(c + 0.5)·ratio − 0.5`, so the same rays pass
  /// through the same image points. Depth-hole blobs scale with the image.
  public func scaled(by factor: Double) -> SyntheticScene {
    var copy = self
    let width = max(1, Int((Double(camera.width) * factor).rounded()))
    let height = max(1, Int((Double(camera.height) * factor).rounded()))
    copy.camera = camera.scaled(toWidth: width, height: height)
    return copy
  }
}
