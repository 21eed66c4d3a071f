import ARSimMath

/// The mip-mapped textures of all materials of a scene in one allocation: per material, levels from
/// `size` x `size` texels down to 1 x 1 (2 x 2 box filter), 8-bit RGB (dithered; alpha unused).
/// Immutable after initialisation, so it is safe to read from many threads.
final class TextureSet: @unchecked Sendable {
  /// Where one material's mip chain is.
  struct Entry {
    /// Index of level 0's first texel.
    var base: Int
    /// log2 of level 0's side.
    var log2Size: Int
    /// Level-0 texels per metre (side / period).
    var texelsPerMetre: Float
  }

  let entries: [Entry]
  let texels: UnsafeMutableBufferPointer<SIMD4<UInt8>>

  init(images: [TextureImage], periods: [Double], seed: UInt64) {
    var entries: [Entry] = []
    var total = 0
    for (image, period) in zip(images, periods) {
      let log2Size = image.size.trailingZeroBitCount
      entries.append(
        Entry(base: total, log2Size: log2Size, texelsPerMetre: Float(Double(image.size) / period)))
      total += ((1 << (2 * (log2Size + 1))) - 1) / 3
    }
    self.entries = entries
    texels = .allocate(capacity: max(total, 1))
    texels.initialize(repeating: SIMD4(repeating: 0))
    for (m, image) in images.enumerated() {
      var random = SplitMix64(seed, stableHash("dither"), UInt64(m))
      var level = image.pixels
      var size = image.size
      var offset = entries[m].base
      while true {
        for (i, colour) in level.enumerated() {
          let dither = SIMD3<Float>(
            Float(random.next() >> 40) * 0x1.0p-24, Float(random.next() >> 40) * 0x1.0p-24,
            Float(random.next() >> 40) * 0x1.0p-24)
          let v = (colour * 255 + dither).clamped(
            lowerBound: SIMD3(repeating: 0), upperBound: SIMD3(repeating: 255))
          texels[offset + i] = SIMD4(UInt8(v.x), UInt8(v.y), UInt8(v.z), 255)
        }
        offset += size * size
        guard size > 1 else { break }
        let half = size / 2
        var next = [SIMD3<Float>](repeating: .zero, count: half * half)
        for y in 0..<half {
          for x in 0..<half {
            let a = level[2 * y * size + 2 * x] + level[2 * y * size + 2 * x + 1]
            let b = level[(2 * y + 1) * size + 2 * x] + level[(2 * y + 1) * size + 2 * x + 1]
            next[y * half + x] = (a + b) * 0.25
          }
        }
        level = next
        size = half
      }
    }
  }

  deinit { texels.deallocate() }
}

/// Samples one material at surface coordinates (`s`, `w`) in metres: bilinear in mip level
/// `floor(lod + dither)` (clamped), where `lod` is log2 of level-0 texels per pixel. Supersamples pass
/// dithers spread over [0, 1), so that their average blends the two levels around `lod` as trilinear
/// filtering would, at the cost of one bilinear lookup each.
@inline(__always)
func sampleTexture(
  _ texels: UnsafePointer<SIMD4<UInt8>>, _ entry: TextureSet.Entry, s: Float, w: Float, lod: Float,
  dither: Float
) -> SIMD4<Float> {
  let level = min(max(floorToInt(min(lod + dither, 64)), 0), entry.log2Size)
  return sampleLevel(texels, entry, level: level, s: s, w: w)
}

@inline(__always)
private func sampleLevel(
  _ texels: UnsafePointer<SIMD4<UInt8>>, _ entry: TextureSet.Entry, level: Int, s: Float, w: Float
) -> SIMD4<Float> {
  let n = entry.log2Size - level
  let size = 1 << n
  let mask = size - 1
  let offset = entry.base + ((1 << (2 * (entry.log2Size + 1))) - (1 << (2 * (n + 1)))) / 3
  let scale = entry.texelsPerMetre / Float(1 << level)
  let x = s * scale - 0.5
  let y = w * scale - 0.5
  let ix = floorToInt(x)
  let iy = floorToInt(y)
  let fx = x - Float(ix)
  let fy = y - Float(iy)
  let x0 = ix & mask
  let x1 = (ix + 1) & mask
  let row0 = offset + (iy & mask) << n
  let row1 = offset + ((iy + 1) & mask) << n
  let t00 = SIMD4<Float>(texels[row0 + x0])
  let t10 = SIMD4<Float>(texels[row0 + x1])
  let t01 = SIMD4<Float>(texels[row1 + x0])
  let t11 = SIMD4<Float>(texels[row1 + x1])
  let bottom = t00 + (t10 - t00) * fx
  let upper = t01 + (t11 - t01) * fx
  return bottom + (upper - bottom) * fy
}

/// `Int(x.rounded(.down))` without a library call on CPUs without SSE4.1 rounding.
@inline(__always)
func floorToInt(_ x: Float) -> Int {
  let i = Int(x)
  return Float(i) > x ? i - 1 : i
}
