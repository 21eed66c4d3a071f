import ARSimMath
import Foundation

extension SyntheticScene.Material {
  /// The characteristic length in metres, with the type's default.
  var patternScale: Double {
    scale
      ?? {
        switch type {
        case .deadLeaves: 0.12
        case .noise: 0.5
        case .tiles: 0.3
        case .strokes: 0.12
        case .paint: 1
        }
      }()
  }

  /// Line width in metres (grout or stroke), with the type's default.
  var tileLineWidth: Double { lineWidth ?? (type == .tiles ? 0.008 : 0.004) }

  /// Colour variation, with the type's default.
  var variation: Double { contrast ?? (type == .paint ? 0.01 : 0.15) }

  /// The texture's repeat in metres.
  var texturePeriod: Double { period ?? 2 }

  /// The colours, with the type's defaults.
  var palette: [SIMD3<Double>] {
    colors
      ?? {
        switch type {
        case .deadLeaves: [SIMD3(0.12, 0.12, 0.12), SIMD3(0.45, 0.45, 0.45), SIMD3(0.82, 0.82, 0.82)]
        case .noise: [SIMD3(0.25, 0.22, 0.2), SIMD3(0.75, 0.7, 0.62)]
        case .tiles: [SIMD3(0.7, 0.68, 0.64), SIMD3(0.35, 0.34, 0.33)]
        case .strokes: [SIMD3(0.85, 0.84, 0.8), SIMD3(0.15, 0.15, 0.2), SIMD3(0.5, 0.2, 0.15)]
        case .paint: [SIMD3(0.8, 0.8, 0.78)]
        }
      }()
  }
}

/// One material's texture over one period, `size` x `size` texels of linear RGB, row-major.
struct TextureImage {
  let size: Int
  /// Metres per texel.
  let texel: Double
  var pixels: [SIMD3<Float>]

  init(size: Int, period: Double, fill: SIMD3<Double>) {
    self.size = size
    texel = period / Double(size)
    pixels = [SIMD3<Float>](repeating: SIMD3<Float>(fill), count: size * size)
  }

  /// Blends `colour` with coverage `alpha(x, y)` (x, y in metres, the texel centre, unwrapped) into
  /// the texels whose centres lie in the box `[minX, maxX] x [minY, maxY]` (metres), wrapping around.
  mutating func paint(
    minX: Double, maxX: Double, minY: Double, maxY: Double, colour: SIMD3<Float>,
    alpha: (Double, Double) -> Double
  ) {
    let i0 = Int((minX / texel - 0.5).rounded(.up))
    let i1 = Int((maxX / texel - 0.5).rounded(.down))
    let j0 = Int((minY / texel - 0.5).rounded(.up))
    let j1 = Int((maxY / texel - 0.5).rounded(.down))
    guard i0 <= i1, j0 <= j1 else { return }
    let mask = size - 1
    for j in j0...j1 {
      let y = (Double(j) + 0.5) * texel
      for i in i0...i1 {
        let a = Float(alpha((Double(i) + 0.5) * texel, y))
        guard a > 0 else { continue }
        let index = (j & mask) * size + (i & mask)
        pixels[index] += (colour - pixels[index]) * min(a, 1)
      }
    }
  }
}

/// Procedural texture synthesis. Everything is seeded by the scene seed and the material's name, and
/// tiles seamlessly with the material's period.
enum ProceduralTexture {
  /// The texture of `material` with about `texelsPerMetre` texels per metre (rounded so that the
  /// period is a power of two texels, at most 2048).
  static func make(_ material: SyntheticScene.Material, seed: UInt64, texelsPerMetre: Double) -> TextureImage
  {
    let period = material.texturePeriod
    var size = 8
    while Double(size) < period * texelsPerMetre - 1e-9, size < 2048 { size *= 2 }
    let colours = material.palette
    var random = SplitMix64(seed, stableHash(material.name), stableHash(material.type.rawValue))
    var image = TextureImage(size: size, period: period, fill: colours[0])
    let scale = material.patternScale
    switch material.type {
    case .deadLeaves:
      let (rMax, rMin) = (scale, scale / 16)
      let (a, b) = (1 / (rMin * rMin), 1 / (rMax * rMax))
      var covered = 0.0
      while covered < 5 * period * period {
        // Radii with density ∝ r⁻³ (scale invariant), by inverting the distribution function.
        let r = 1 / (a - random.uniform() * (a - b)).squareRoot()
        let centre = SIMD2(random.uniform(0, period), random.uniform(0, period))
        var colour = colours[Int(random.next() % UInt64(colours.count))] * random.uniform(0.65, 1.2)
        colour = simd_clamp(colour, SIMD3(repeating: 0), SIMD3(repeating: 1))
        let texel = image.texel
        image.paint(
          minX: centre.x - r - texel, maxX: centre.x + r + texel, minY: centre.y - r - texel,
          maxY: centre.y + r + texel, colour: SIMD3<Float>(colour)
        ) { x, y in
          (r - ((x - centre.x) * (x - centre.x) + (y - centre.y) * (y - centre.y)).squareRoot()) / texel + 0.5
        }
        covered += Double.pi * r * r
      }
    case .noise:
      let octaves = material.octaves ?? 6
      let noise = FractalNoise(
        period: period, wavelength: scale, octaves: octaves, size: size, random: &random)
      let (c0, c1) = (SIMD3<Float>(colours[0]), SIMD3<Float>(colours[1]))
      for j in 0..<size {
        for i in 0..<size {
          let v = min(max(0.5 + 0.9 * noise.value(i, j), 0), 1)
          image.pixels[j * size + i] = c0 + (c1 - c0) * v
        }
      }
    case .tiles:
      let count = max(1, Int((period / scale).rounded()))
      let tile = period / Double(count)
      let halfLine = material.tileLineWidth / 2
      var tints: [SIMD3<Float>] = []
      for _ in 0..<(count * count) {
        let brightness = 1 + material.variation * random.uniform(-1, 1)
        let hue =
          SIMD3(random.uniform(-1, 1), random.uniform(-1, 1), random.uniform(-1, 1))
          * (0.3 * material.variation)
        tints.append(
          SIMD3<Float>(simd_clamp(colours[0] * (brightness + hue), SIMD3(repeating: 0), SIMD3(repeating: 1))))
      }
      let grout = SIMD3<Float>(colours[1])
      for j in 0..<size {
        let y = (Double(j) + 0.5) * image.texel
        let ty = min(Int(y / tile), count - 1)
        let fy = y - Double(ty) * tile
        for i in 0..<size {
          let x = (Double(i) + 0.5) * image.texel
          let tx = min(Int(x / tile), count - 1)
          let fx = x - Double(tx) * tile
          let edge = min(fx, tile - fx, fy, tile - fy)
          let speckle = Float(1 + 0.04 * random.uniform(-1, 1))
          let coverage = Float(min(max((edge - halfLine) / image.texel + 0.5, 0), 1))
          image.pixels[j * size + i] = grout + (tints[ty * count + tx] * speckle - grout) * coverage
        }
      }
    case .strokes:
      let count = Int((material.density ?? 300) * period * period)
      let halfWidth = material.tileLineWidth / 2
      let inks = colours.count > 1 ? Array(colours.dropFirst()) : [SIMD3(0.1, 0.1, 0.1)]
      for _ in 0..<count {
        let centre = SIMD2(random.uniform(0, period), random.uniform(0, period))
        let angle = random.uniform(0, .pi)
        let half = 0.5 * scale * random.uniform(0.25, 1) * SIMD2(cos(angle), sin(angle))
        let (p0, p1) = (centre - half, centre + half)
        var ink = inks[Int(random.next() % UInt64(inks.count))] * random.uniform(0.7, 1.3)
        ink = simd_clamp(ink, SIMD3(repeating: 0), SIMD3(repeating: 1))
        let d = p1 - p0
        let lengthSquared = max((d * d).sum(), 1e-12)
        let margin = halfWidth + image.texel
        let texel = image.texel
        image.paint(
          minX: min(p0.x, p1.x) - margin, maxX: max(p0.x, p1.x) + margin, minY: min(p0.y, p1.y) - margin,
          maxY: max(p0.y, p1.y) + margin, colour: SIMD3<Float>(ink)
        ) { x, y in
          let p = SIMD2(x, y) - p0
          let s = min(max((p * d).sum() / lengthSquared, 0), 1)
          let q = p - s * d
          return (halfWidth - (q * q).sum().squareRoot()) / texel + 0.5
        }
      }
    case .paint:
      let noise = FractalNoise(period: period, wavelength: scale, octaves: 3, size: size, random: &random)
      let base = SIMD3<Float>(colours[0])
      let amplitude = Float(material.variation)
      for j in 0..<size {
        for i in 0..<size {
          image.pixels[j * size + i] = base * (1 + amplitude * 1.6 * noise.value(i, j))
        }
      }
    }
    return image
  }
}

/// Sum of periodic gradient-noise octaves sampled on a `size` x `size` texel grid, about in [−0.6, 0.6].
struct FractalNoise {
  private struct Octave {
    let cells: Int
    let amplitude: Float
    let gradients: [SIMD2<Float>]
  }

  private let octaves: [Octave]
  private let size: Int

  init(period: Double, wavelength: Double, octaves count: Int, size: Int, random: inout SplitMix64) {
    self.size = size
    var cells = max(1, Int((period / wavelength).rounded()))
    var amplitude: Float = 1
    var octaves: [Octave] = []
    var total: Float = 0
    for _ in 0..<count where cells <= size / 2 {
      var gradients: [SIMD2<Float>] = []
      gradients.reserveCapacity(cells * cells)
      for _ in 0..<(cells * cells) {
        let angle = random.uniform(0, 2 * .pi)
        gradients.append(SIMD2(Float(cos(angle)), Float(sin(angle))))
      }
      octaves.append(Octave(cells: cells, amplitude: amplitude, gradients: gradients))
      total += amplitude
      cells *= 2
      amplitude *= 0.5
    }
    self.octaves = octaves.map {
      Octave(cells: $0.cells, amplitude: $0.amplitude / max(total, 1), gradients: $0.gradients)
    }
  }

  /// The noise at the centre of texel (`i`, `j`).
  func value(_ i: Int, _ j: Int) -> Float {
    var sum: Float = 0
    for octave in octaves {
      let scale = Float(octave.cells) / Float(size)
      let x = (Float(i) + 0.5) * scale
      let y = (Float(j) + 0.5) * scale
      let (x0, y0) = (Int(x), Int(y))
      let (fx, fy) = (x - Float(x0), y - Float(y0))
      func dot(_ di: Int, _ dj: Int) -> Float {
        let g = octave.gradients[((y0 + dj) % octave.cells) * octave.cells + (x0 + di) % octave.cells]
        return g.x * (fx - Float(di)) + g.y * (fy - Float(dj))
      }
      let u = fx * fx * fx * (fx * (fx * 6 - 15) + 10)
      let v = fy * fy * fy * (fy * (fy * 6 - 15) + 10)
      let bottom = dot(0, 0) + (dot(1, 0) - dot(0, 0)) * u
      let top = dot(0, 1) + (dot(1, 1) - dot(0, 1)) * u
      sum += octave.amplitude * (bottom + (top - bottom) * v)
    }
    return sum
  }
}
